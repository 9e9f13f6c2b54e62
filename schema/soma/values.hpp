#pragma once

/// @file
/// soma::value and soma::values: named values, a trial's parameters and
/// result (docs/trials.md) and a run's parameters (docs/formats.md).

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// One value of a trial's or a run's parameters, or a trial's result: a whole number, a real, a
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

SOMA_API_END
