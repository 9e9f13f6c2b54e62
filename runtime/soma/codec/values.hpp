#pragma once

/// @file
/// soma::codec for single values: bool, integers, floating point, strings,
/// bytes, std::monostate. Included by soma/codec.hpp; include that.

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

namespace detail {

/// Throws the codec_error of a value that does not fit the type asked for,
/// e.g. "the int64 300 is out of range for int8 (-128 to 127)".
[[noreturn]] void out_of_range(std::string_view held, const std::string& value,
                               std::string_view target, const std::string& low,
                               const std::string& high);

/// Throws the codec_error of bytes whose shape is not what the type needs
/// (decode names the type in front of `why`).
[[noreturn]] void malformed(const std::string& why);

/// Integer types that travel as Int64 / UInt64. char is neither (its sign
/// differs between hosts; it has its own codec), nor is wchar_t (its size
/// and sign differ between hosts), nor bool.
template <class T>
concept signed_number = std::signed_integral<T> && !std::same_as<T, char>
                        && !std::same_as<T, wchar_t>;
template <class T>
concept unsigned_number = std::unsigned_integral<T> && !std::same_as<T, char>
                          && !std::same_as<T, wchar_t> && !std::same_as<T, bool>;

/// The C++ type an integer is decoded into, for errors: "int8", "uint32".
template <class T>
std::string integer_name() {
  return (std::is_signed_v<T> ? "int" : "uint") + std::to_string(sizeof(T) * 8);
}

/// Element types whose vectors and arrays travel as a list of 8-byte numbers
/// (codec<T>::wire: std::int64_t, std::uint64_t or double).
template <class T>
concept number_element = requires { typename codec<T>::wire; };

} // namespace detail

/// bool: Bool.
template <>
struct codec<bool> {
  static std::string name() { return "bool"; }
  static void write(value_writer w, bool x) { w.write_bool(x); }
  static bool read(value_reader r) { return r.read_bool(); }
};

/// Every signed integer type: Int64, named "int64" whatever its width, so a
/// value written as long reads back as int; decoding into a narrower type
/// checks the range.
template <class T>
  requires detail::signed_number<T>
struct codec<T> {
  using wire = std::int64_t;
  static std::string name() { return "int64"; }
  static wire widen(T x) noexcept { return x; }
  static T narrow(wire x) {
    if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max())
      detail::out_of_range("int64", std::to_string(x), detail::integer_name<T>(),
                           std::to_string(std::numeric_limits<T>::min()),
                           std::to_string(std::numeric_limits<T>::max()));
    return static_cast<T>(x);
  }
  static void write(value_writer w, T x) { w.write_int64(x); }
  static T read(value_reader r) { return narrow(r.read_int64()); }
};

/// Every unsigned integer type (and char8_t, char16_t, char32_t): UInt64,
/// named "uint64"; decoding into a narrower type checks the range.
template <class T>
  requires detail::unsigned_number<T>
struct codec<T> {
  using wire = std::uint64_t;
  static std::string name() { return "uint64"; }
  static wire widen(T x) noexcept { return x; }
  static T narrow(wire x) {
    if (x > std::numeric_limits<T>::max())
      detail::out_of_range("uint64", std::to_string(x), detail::integer_name<T>(), "0",
                           std::to_string(std::numeric_limits<T>::max()));
    return static_cast<T>(x);
  }
  static void write(value_writer w, T x) { w.write_uint64(x); }
  static T read(value_reader r) { return narrow(r.read_uint64()); }
};

/// char: Int64 of its bits read as a signed char (-128 to 127), so the same
/// char gives the same bytes whether the host's char is signed or not;
/// decoding accepts -128 to 255.
template <>
struct codec<char> {
  using wire = std::int64_t;
  static std::string name() { return "int64"; }
  static wire widen(char x) noexcept { return static_cast<signed char>(x); }
  static char narrow(wire x) {
    if (x < -128 || x > 255)
      detail::out_of_range("int64", std::to_string(x), "char", "-128", "255");
    return static_cast<char>(static_cast<unsigned char>(x));
  }
  static void write(value_writer w, char x) { w.write_int64(widen(x)); }
  static char read(value_reader r) { return narrow(r.read_int64()); }
};

/// std::byte: UInt64 (0 to 255), named "uint64".
template <>
struct codec<std::byte> {
  static std::string name() { return "uint64"; }
  static void write(value_writer w, std::byte x) { w.write_uint64(static_cast<std::uint64_t>(x)); }
  static std::byte read(value_reader r) {
    return static_cast<std::byte>(codec<unsigned char>::narrow(r.read_uint64()));
  }
};

/// double: Float64, every bit kept (-0.0, infinities, NaN payloads).
template <>
struct codec<double> {
  using wire = double;
  static std::string name() { return "float64"; }
  static wire widen(double x) noexcept { return x; }
  static double narrow(wire x) noexcept { return x; }
  static void write(value_writer w, double x) { w.write_float64(x); }
  static double read(value_reader r) { return r.read_float64(); }
};

/// float: Float64 (widening is exact), named "float64". Decoding narrows:
/// rounded to the nearest float; a finite value beyond float's range is an
/// error (infinities and NaN stay what they are).
template <>
struct codec<float> {
  using wire = double;
  static std::string name() { return "float64"; }
  static wire widen(float x) noexcept { return x; }
  static float narrow(wire x) {
    if (std::isfinite(x) && std::fabs(x) > std::numeric_limits<float>::max())
      detail::out_of_range("float64", std::to_string(x), "float",
                           std::to_string(-std::numeric_limits<float>::max()),
                           std::to_string(std::numeric_limits<float>::max()));
    return static_cast<float>(x);
  }
  static void write(value_writer w, float x) { w.write_float64(x); }
  static float read(value_reader r) { return narrow(r.read_float64()); }
};

/// std::string: Data, every byte kept (NUL bytes too; no UTF-8 check).
template <>
struct codec<std::string> {
  static std::string name() { return "string"; }
  static void write(value_writer w, const std::string& x) { w.write_data(x); }
  static std::string read(value_reader r) { return std::string{r.read_data()}; }
};

/// std::vector<std::byte>: Data, named "bytes".
template <>
struct codec<std::vector<std::byte>> {
  static std::string name() { return "bytes"; }
  static void write(value_writer w, const std::vector<std::byte>& x) { w.write_data(x); }
  static std::vector<std::byte> read(value_reader r) {
    auto d = r.read_data();
    auto* p = reinterpret_cast<const std::byte*>(d.data());
    return {p, p + d.size()};
  }
};

/// std::vector<std::uint8_t>: Data, named "bytes" (reads what a
/// std::vector<std::byte> wrote, and the other way round).
template <>
struct codec<std::vector<std::uint8_t>> {
  static std::string name() { return "bytes"; }
  static void write(value_writer w, const std::vector<std::uint8_t>& x) {
    w.write_data(std::string_view{reinterpret_cast<const char*>(x.data()), x.size()});
  }
  static std::vector<std::uint8_t> read(value_reader r) {
    auto d = r.read_data();
    auto* p = reinterpret_cast<const std::uint8_t*>(d.data());
    return {p, p + d.size()};
  }
};

/// std::monostate: a value with nothing in it, named "none".
template <>
struct codec<std::monostate> {
  static std::string name() { return "none"; }
  static void write(value_writer w, std::monostate) { w.write_none(); }
  static std::monostate read(value_reader r) {
    r.read_none();
    return {};
  }
};

} // namespace soma

SOMA_API_END
