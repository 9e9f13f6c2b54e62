#pragma once

/// @file
/// soma::scalar: the value of one field of a fact, a whole number, a real or
/// a text. A number stays a number from whoever says it to the store, to a
/// watcher and to `--json`; text is made of it only where a person reads it
/// (scalar::str, soma::print).

#include <charconv>
#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// Formats a number as a person reads it: integers in decimal, floating
/// point as the shortest text that reads back to the same value (2.1 is "2.1",
/// 0.1 + 0.2 is "0.30000000000000004").
template <class T>
  requires std::is_arithmetic_v<T> && (!std::is_same_v<T, bool>)
std::string text(T x) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, ec == std::errc{} ? end : buf);
}

/// What a scalar holds.
enum class scalar_kind : std::uint8_t {
  text = 0,    ///< any text (bytes; UTF-8 where it is read as text)
  integer = 1, ///< a whole number, signed 64 bits
  real = 2,    ///< a double
};

/// The value of one field of a fact: a whole number, a real or a text.
///
/// Integral types (but bool) make an integer, floating point a real, and
/// strings a text: `{"took_us", 318}`, `{"value", 2.1}`, `{"node", "embed"}`.
/// An unsigned number past the largest int64 is kept as a real. Two scalars
/// are equal when they hold the same kind and value: the integer 2 is not the
/// real 2.0 nor the text "2".
class scalar {
public:
  /// An empty text.
  scalar() noexcept = default;

  scalar(std::string s) noexcept : v_(std::move(s)) {}

  scalar(const char* s) : v_(std::string{s}) {}

  scalar(std::string_view s) : v_(std::string{s}) {}

  template <class T>
    requires std::is_integral_v<T> && (!std::is_same_v<T, bool>)
  scalar(T x) noexcept {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) {
      if (x > static_cast<T>(INT64_MAX)) {
        v_ = static_cast<double>(x);
        return;
      }
    }
    v_ = static_cast<std::int64_t>(x);
  }

  template <class T>
    requires std::is_floating_point_v<T>
  scalar(T x) noexcept : v_(static_cast<double>(x)) {}

  [[nodiscard]] scalar_kind kind() const noexcept {
    return static_cast<scalar_kind>(v_.index());
  }

  [[nodiscard]] bool is_text() const noexcept { return v_.index() == 0; }
  [[nodiscard]] bool is_integer() const noexcept { return v_.index() == 1; }
  [[nodiscard]] bool is_real() const noexcept { return v_.index() == 2; }
  [[nodiscard]] bool is_number() const noexcept { return v_.index() != 0; }

  /// The whole number held, or nullopt when it holds a real or a text.
  [[nodiscard]] std::optional<std::int64_t> integer() const noexcept {
    if (auto* i = std::get_if<std::int64_t>(&v_))
      return *i;
    return std::nullopt;
  }

  /// The number held, an integer as a double; nullopt for a text.
  [[nodiscard]] std::optional<double> number() const noexcept {
    if (auto* i = std::get_if<std::int64_t>(&v_))
      return static_cast<double>(*i);
    if (auto* d = std::get_if<double>(&v_))
      return *d;
    return std::nullopt;
  }

  /// The whole number held, or `otherwise` (a real, a text).
  [[nodiscard]] std::int64_t integer_or(std::int64_t otherwise) const noexcept {
    auto* i = std::get_if<std::int64_t>(&v_);
    return i ? *i : otherwise;
  }

  /// The text held; empty when it holds a number (str() writes a number).
  [[nodiscard]] std::string_view text() const noexcept {
    auto* s = std::get_if<std::string>(&v_);
    return s ? std::string_view{*s} : std::string_view{};
  }

  /// The bytes of room the text held has (its std::string's capacity), which
  /// a text moved in may have more of than its size; 0 for a number.
  [[nodiscard]] std::size_t text_capacity() const noexcept {
    auto* s = std::get_if<std::string>(&v_);
    return s ? s->capacity() : 0;
  }

  /// What a person reads: the text, or the number as soma::text writes it.
  [[nodiscard]] std::string str() const;

  /// Appends what str() returns to `out`.
  void append_to(std::string& out) const;

  friend bool operator==(const scalar&, const scalar&) = default;

  /// A scalar equals a string when it is a text with those bytes.
  template <class S>
    requires std::convertible_to<const S&, std::string_view>
  friend bool operator==(const scalar& a, const S& b) noexcept {
    auto* s = std::get_if<std::string>(&a.v_);
    return s && std::string_view{*s} == std::string_view{b};
  }

  /// A scalar equals a number when it holds that kind and value.
  template <class T>
    requires std::is_arithmetic_v<T> && (!std::is_same_v<T, bool>)
  friend bool operator==(const scalar& a, T b) noexcept {
    return a == scalar{b};
  }

  /// Visits the value held: a std::string, std::int64_t or double.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), v_);
  }

  /// CAF inspection: the kind, then the number and the text (what is not
  /// held travels as 0 and empty).
  template <class Inspector>
  friend auto inspect(Inspector& f, scalar& x) {
    auto k = static_cast<std::uint8_t>(x.v_.index());
    std::int64_t i = x.integer_or(0);
    double d = x.is_real() ? std::get<double>(x.v_) : 0.0;
    std::string s{x.text()};
    if constexpr (Inspector::reads_state) {
      return f(k, i, d, s);
    } else {
      auto result = f(k, i, d, s);
      if (k == 1)
        x.v_ = i;
      else if (k == 2)
        x.v_ = d;
      else
        x.v_ = std::move(s);
      return result;
    }
  }

private:
  std::variant<std::string, std::int64_t, double> v_;
};

/// Writes what str() returns.
std::ostream& operator<<(std::ostream& out, const scalar& x);

/// The number `x` stands for where a number is wanted (a curve, a rule): a
/// number as itself, and a text that reads whole as one ("nan", "inf", "1e5")
/// as that; nullopt for any other text.
[[nodiscard]] std::optional<double> read_number(const scalar& x) noexcept;

/// The scalar a text written by an older soma (where every field was text)
/// stands for: an integer when the text is exactly how soma writes that
/// integer ("-12", not "+12", "012" or "-0"), a real when it is exactly the
/// shortest text that reads back to that double ("2.1"), else the text.
/// So a number read from a store of format 1 is the number it was told as.
[[nodiscard]] scalar scalar_of_text(std::string_view s);

} // namespace soma

SOMA_API_END
