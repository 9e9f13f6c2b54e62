#pragma once

/// @file
/// What a study and its trials are (docs/trials.md): the named values a
/// trial is given and gives back, and the rows a store keeps of each. Kept
/// and claimed by soma/store/trials.hpp; claimed and run by soma/claimant.hpp.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace soma {

/// One value of a trial's parameters or result: a whole number, a real, a
/// text or a flag.
using value = std::variant<std::int64_t, double, std::string, bool>;

/// A value as a person reads it: 3, 0.001, text, true. Reals keep every
/// digit they need to read back the same.
[[nodiscard]] std::string text(const value& v);

/// The type a value holds, as words: "a whole number", "a real", "a text", "a flag".
[[nodiscard]] const char* type_word(const value& v) noexcept;

/// A parameter or a result was asked for by a name it does not have, or as
/// a type it does not hold. what() names it and says what there is.
class value_missing : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

/// Named values in order: a trial's parameters, or its result. Names are
/// unique; setting one again replaces its value.
class values {
public:
  values() = default;
  values(std::initializer_list<std::pair<std::string, value>> xs);

  /// Sets `name` to `v` (replacing it when already there).
  values& set(std::string name, value v);

  /// The value of `name`, or nullptr.
  [[nodiscard]] const value* find(std::string_view name) const noexcept;

  /// The value of `name` as a T: std::int64_t or another integer type (from
  /// a whole number that fits), double (from a real or a whole number),
  /// std::string, bool. Throws value_missing naming it, what it holds and
  /// the names there are.
  template <class T>
  [[nodiscard]] T get(std::string_view name) const;

  [[nodiscard]] const std::vector<std::pair<std::string, value>>& items() const noexcept {
    return items_;
  }
  [[nodiscard]] bool empty() const noexcept { return items_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return items_.size(); }
  [[nodiscard]] auto begin() const noexcept { return items_.begin(); }
  [[nodiscard]] auto end() const noexcept { return items_.end(); }

  /// name=value, comma-separated, for a table: "lr=0.01,depth=4".
  [[nodiscard]] std::string text() const;

  friend bool operator==(const values&, const values&) = default;

private:
  [[noreturn]] void missing(std::string_view name, const char* wanted) const;
  std::vector<std::pair<std::string, value>> items_;
};

/// Where a trial stands.
enum class trial_state : std::uint8_t {
  waiting, ///< nobody holds it: the next claim may take it
  claimed, ///< a claimant holds it
  done,    ///< its function returned a result
  broke,   ///< its function threw
};

[[nodiscard]] const char* to_string(trial_state s) noexcept;
std::ostream& operator<<(std::ostream& out, trial_state s);

/// An attempt at a trial that ended without a result: handed back by
/// soma::reclaim (its claimant went quiet), or let go by its claimant.
struct attempt_row {
  std::uint32_t attempt = 0; ///< 1 for the trial's first claim
  std::string claimant;      ///< the claimant's machine id (hostname-pid)
  std::int64_t claimed_us = 0;
  std::string run;           ///< the run it recorded into
  std::int64_t ended_us = 0; ///< when it was handed back, by the handing writer's clock
  std::string why;           ///< the rule and what was measured, or the claimant's word
};

/// One trial of a study, as the store keeps it.
struct trial_row {
  std::uint64_t number = 0; ///< from 0, in the order added
  values params;
  trial_state state = trial_state::waiting;
  std::uint32_t attempt = 0;   ///< the current attempt; 0 while never claimed
  std::string claimant;        ///< who holds (claimed) or held (done, broke) it
  std::int64_t claimed_us = 0; ///< when, by the claimant's clock
  std::string run;             ///< the current attempt's run
  std::int64_t ended_us = 0;   ///< when it was done or broke
  values result;               ///< done: what its function returned
  std::string error;           ///< broke: what its function threw
  std::vector<attempt_row> abandoned; ///< earlier attempts, oldest first
  std::int64_t added_us = 0;
};

/// A study: a named set of trials in a store.
struct study_row {
  std::string name;
  std::int64_t created_us = 0;
  std::uint64_t trials = 0; ///< how many it has
  std::string function;     ///< the trial function `soma-node --claim` runs when told no other
};

/// The run an attempt records into: `STUDY.NUMBER`, then `.ATTEMPT`
/// from the second attempt on, so a handed-back attempt's forwards stay
/// readable beside the next one's.
[[nodiscard]] std::string trial_run(std::string_view study, std::uint64_t number,
                                    std::uint32_t attempt);

// ---- implementation ----

template <class T>
T values::get(std::string_view name) const {
  const value* v = find(name);
  if constexpr (std::is_same_v<T, bool>) {
    if (v && std::holds_alternative<bool>(*v))
      return std::get<bool>(*v);
    missing(name, "a flag");
  } else if constexpr (std::is_integral_v<T>) {
    if (v && std::holds_alternative<std::int64_t>(*v)) {
      auto x = std::get<std::int64_t>(*v);
      if (std::in_range<T>(x))
        return static_cast<T>(x);
      missing(name, "a whole number that fits its type");
    }
    missing(name, "a whole number");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (v && std::holds_alternative<double>(*v))
      return static_cast<T>(std::get<double>(*v));
    if (v && std::holds_alternative<std::int64_t>(*v))
      return static_cast<T>(std::get<std::int64_t>(*v));
    missing(name, "a number");
  } else {
    static_assert(std::is_same_v<T, std::string>,
                  "values::get<T>: T is an integer type, a floating-point type, bool or std::string");
    if (v && std::holds_alternative<std::string>(*v))
      return std::get<std::string>(*v);
    missing(name, "a text");
  }
}

} // namespace soma
