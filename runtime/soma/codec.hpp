#pragma once

/// @file
/// soma::codec<T>: the one encoding of a node's input or output that leaves
/// a process (into the cache, across the wire), through Cap'n Proto
/// (schema/value.capnp). The same value gives the same bytes in every
/// process on every host. Supported types, the wire format and the limits
/// on hostile input: docs/codec.md.
///
/// ```
/// std::string bytes = soma::encode(std::vector<double>{1.5, 2});
/// auto v = soma::decode<std::vector<double>>(bytes); // {1.5, 2}
/// soma::decode<std::string>(bytes); // throws: these bytes hold a vector<float64>, not a string
/// ```
///
/// A type of your own, in a few lines (decode default-constructs it, then
/// fills the fields in order):
/// ```
/// template <>
/// struct soma::codec<Point> : soma::fields_codec<Point> {
///   static std::string name() { return "Point"; }
///   static auto fields(Point& p) { return std::tie(p.x, p.y); }
/// };
/// ```
/// Specialise before the first use of the type with encode, decode or
/// `encodable`. Your type then also works inside vectors, maps, optionals.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// What decode throws when bytes are not the value asked for: another type,
/// truncated or damaged bytes, an integer out of range, a value nested too
/// deep or too large; and what encode throws for a value nested too deep.
/// The message names the types involved by their codec names.
class codec_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Limits that guard decode against hostile bytes (they may come from the
/// network). Encode refuses what decode would refuse, so nothing encoded
/// here is ever unreadable.
namespace codec_limits {

/// The most bytes decode accepts: 1 GiB. Larger inputs are refused before
/// anything is read.
inline constexpr std::size_t max_bytes = std::size_t{1} << 30;

/// The deepest nesting of lists (vectors, maps, optionals, tuples, fields
/// of your types) in one value: 64. Cap'n Proto's nesting limit is set from
/// it (ReaderOptions::nestingLimit = 2 * max_depth + 2, since each level is
/// a list pointer and a struct).
inline constexpr unsigned max_depth = 64;

// ReaderOptions::traversalLimitInWords is 2 * (the message's size in words)
// + 64: decoding reads each word of honest bytes once, so pointers that
// alias one object (an "amplification" attack) cannot make decode do more
// than twice the work of the bytes given. Before reading a list, decode
// reserves at most 16 MiB of C++ elements; beyond that a container grows
// only as its elements actually decode.

} // namespace codec_limits

/// The shape a value takes on the wire (schema/value.capnp, Value).
enum class value_kind : std::uint8_t {
  unset,   ///< nothing written here (or a shape this soma does not know)
  none,    ///< std::monostate
  boolean, ///< bool
  int64,   ///< a signed integer
  uint64,  ///< an unsigned integer
  float64, ///< float or double
  data,    ///< bytes: std::string, byte vectors
  list,    ///< a list of values
  int64s,  ///< a list of signed integers
  uint64s, ///< a list of unsigned integers
  float64s ///< a list of floating point numbers
};

/// "int64", "list", ...; "nothing" for unset.
[[nodiscard]] std::string_view to_string(value_kind k) noexcept;

namespace detail {

/// Room for a writer's handle (where it writes, in codec.cpp) or a Cap'n
/// Proto reader handle, so that the writer and reader below name no Cap'n
/// Proto type (codec.cpp checks that it fits).
struct handle_storage {
  alignas(8) unsigned char bytes[48];
};

struct codec_access;

} // namespace detail

class list_writer;
class list_reader;

/// Where one value is written, inside a message encode is building. Write
/// exactly one thing into it. A small handle: copy it freely; valid only
/// inside the codec<T>::write call that was given it.
class value_writer {
public:
  void write_none();
  void write_bool(bool x);
  void write_int64(std::int64_t x);
  void write_uint64(std::uint64_t x);
  void write_float64(double x);
  /// Bytes, NUL bytes included.
  void write_data(std::string_view bytes);
  void write_data(std::span<const std::byte> bytes);
  /// A list of `size` values, each to be written through the list_writer.
  /// Throws codec_error when this would nest deeper than
  /// codec_limits::max_depth.
  [[nodiscard]] list_writer write_list(std::size_t size);
  /// Lists of numbers, 8 bytes each on the wire.
  void write_int64s(std::span<const std::int64_t> xs);
  void write_uint64s(std::span<const std::uint64_t> xs);
  void write_float64s(std::span<const double> xs);

  /// How many lists enclose this value.
  [[nodiscard]] unsigned depth() const noexcept { return depth_; }

private:
  friend class list_writer;
  friend struct detail::codec_access;
  detail::handle_storage h_;
  unsigned depth_ = 0;
};

/// The elements of a list being written.
class list_writer {
public:
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Element `i` (< size(): a bug otherwise).
  [[nodiscard]] value_writer operator[](std::size_t i) const;

private:
  friend class value_writer;
  detail::handle_storage h_;
  std::size_t size_ = 0;
  unsigned depth_ = 0;
};

/// One value inside bytes being decoded. Every read_ function checks the
/// shape and throws codec_error when the bytes hold another. A small handle:
/// copy it freely; it, the views it returns and every reader from it live
/// as long as the decode call that made them.
class value_reader {
public:
  [[nodiscard]] value_kind kind() const noexcept;
  void read_none() const;
  [[nodiscard]] bool read_bool() const;
  [[nodiscard]] std::int64_t read_int64() const;
  [[nodiscard]] std::uint64_t read_uint64() const;
  [[nodiscard]] double read_float64() const;
  /// A view of the bytes inside the message being decoded.
  [[nodiscard]] std::string_view read_data() const;
  [[nodiscard]] list_reader read_list() const;
  /// A list that must have exactly `size` elements (a tuple, a struct).
  [[nodiscard]] list_reader read_list(std::size_t size) const;
  [[nodiscard]] std::vector<std::int64_t> read_int64s() const;
  [[nodiscard]] std::vector<std::uint64_t> read_uint64s() const;
  [[nodiscard]] std::vector<double> read_float64s() const;

private:
  friend class list_reader;
  friend struct detail::codec_access;
  [[noreturn]] void mismatch(value_kind wanted) const;
  detail::handle_storage h_;
};

/// The elements of a list being decoded.
class list_reader {
public:
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Element `i` (< size(): a bug otherwise).
  [[nodiscard]] value_reader operator[](std::size_t i) const;

private:
  friend class value_reader;
  detail::handle_storage h_;
  std::size_t size_ = 0;
};

/// How a type T is written and read: specialise it for your own types
/// (most easily through fields_codec). A specialisation has
/// `static std::string name()` (the same on every host: it is checked when
/// decoding), `static void write(value_writer, const T&)` (which must write
/// the same value each time: encode calls it twice for a value holding
/// bytes or numbers of 4 KiB or more) and `static T read(value_reader)`.
template <class T>
struct codec;

/// T has a codec: soma can encode it, keep it in a cache, send it.
template <class T>
concept encodable = requires(const T& x, value_writer w, value_reader r) {
  { codec<T>::name() } -> std::convertible_to<std::string>;
  codec<T>::write(w, x);
  { codec<T>::read(r) } -> std::same_as<T>;
};

namespace detail {

using write_fn = void (*)(value_writer, const void*);
using read_fn = void (*)(value_reader, void*);

/// The message encode writes, canonical (see encode).
[[nodiscard]] std::string encode_value(const std::string& name, write_fn write, const void* x);

/// Checks `bytes` and the type name they hold against `name`, then calls
/// `read`; every Cap'n Proto error becomes a codec_error here.
void decode_value(std::string_view bytes, const std::string& name, read_fn read, void* out);

/// encode_value for a value that is one run of bytes (a std::string or a
/// byte vector, which codec<T> writes with write_data): the same bytes,
/// written straight into the message, the run copied once.
[[nodiscard]] std::string encode_bytes(const std::string& name, std::string_view bytes);

/// encode_value for a value that is one run of 8-byte numbers (a vector of
/// std::int64_t, std::uint64_t or double, which codec<T> writes with
/// write_int64s, write_uint64s or write_float64s): as encode_bytes.
[[nodiscard]] std::string encode_numbers(const std::string& name, std::span<const std::int64_t> xs);
[[nodiscard]] std::string encode_numbers(const std::string& name, std::span<const std::uint64_t> xs);
[[nodiscard]] std::string encode_numbers(const std::string& name, std::span<const double> xs);

/// Where the run is in `bytes` when they are exactly what encode_bytes
/// (`kind` value_kind::data) or encode_numbers (int64s, uint64s, float64s)
/// writes for a value named `name`: a view into `bytes`, valid as long as
/// they are, to be copied out once, at any alignment. Nothing otherwise:
/// decode_value then reads them as it reads any value, and says what is
/// wrong with them, if anything.
[[nodiscard]] std::optional<std::string_view> run_in(std::string_view bytes, const std::string& name,
                                                     value_kind kind);

/// T is one run of bytes: encode<T> calls encode_bytes.
template <class T>
inline constexpr bool one_run_of_bytes = std::is_same_v<T, std::string>
                                         || std::is_same_v<T, std::vector<std::byte>>
                                         || std::is_same_v<T, std::vector<std::uint8_t>>;

/// T is one run of 8-byte numbers, written by soma's own codec (not one a
/// user specialised for it): encode<T> calls encode_numbers.
template <class T>
inline constexpr bool one_run_of_numbers = (std::is_same_v<T, std::vector<std::int64_t>>
                                            || std::is_same_v<T, std::vector<std::uint64_t>>
                                            || std::is_same_v<T, std::vector<double>>)
                                           && requires { requires codec<T>::by_soma; };

/// What a run of T's is on the wire, for run_in.
template <class T>
inline constexpr value_kind run_kind = std::is_same_v<T, std::vector<std::int64_t>>    ? value_kind::int64s
                                       : std::is_same_v<T, std::vector<std::uint64_t>> ? value_kind::uint64s
                                       : std::is_same_v<T, std::vector<double>>        ? value_kind::float64s
                                                                                       : value_kind::data;

/// The canonical bytes of one value alone: the order of an unordered map's
/// keys.
[[nodiscard]] std::string value_bytes(write_fn write, const void* x);

template <class T>
void write_erased(value_writer w, const void* x) {
  codec<T>::write(w, *static_cast<const T*>(x));
}

template <class T>
void read_erased(value_reader r, void* out) {
  static_cast<std::optional<T>*>(out)->emplace(codec<T>::read(r));
}

} // namespace detail

#define SOMA_CODEC_MISSING                                                                         \
  "this type has no soma::codec: specialise soma::codec<T> for it (for a struct, derive it from " \
  "soma::fields_codec<T> and give name() and fields(); see docs/codec.md and "                    \
  "apps/examples/own_type_codec.cpp)"

/// Encodes a value: the one form it takes when it leaves the process.
///
/// @param x  any value whose type has a codec (see `encodable`).
/// @return   a Cap'n Proto message (schema/value.capnp): the 8-byte segment
///           table of one segment, then an EncodedValue holding
///           codec<T>::name() and the value, in Cap'n Proto's canonical form
///           (what capnp::canonicalize gives: one segment, objects in
///           pre-order, sections truncated, no padding or pointer leaks). The
///           same value gives the same bytes in every process on every host;
///           an unordered map's entries are ordered by their keys' encoded
///           bytes.
/// @throws codec_error when the value nests deeper than
///           codec_limits::max_depth, a list holds 2^29 elements or more, or
///           the result would exceed codec_limits::max_bytes: decode would
///           refuse it. Also when a codec's write, called a second time to
///           copy a payload of 4 KiB or more, writes another value
///           (docs/codec.md, "A codec by hand").
/// Any thread may call it, many at once.
template <class T>
[[nodiscard]] std::string encode(const T& x) {
  static_assert(encodable<T>, SOMA_CODEC_MISSING);
  if constexpr (detail::one_run_of_bytes<T>)
    return detail::encode_bytes(codec<T>::name(),
                                {reinterpret_cast<const char*>(x.data()), x.size()});
  else if constexpr (detail::one_run_of_numbers<T>)
    return detail::encode_numbers(codec<T>::name(), std::span{x.data(), x.size()});
  else
    return detail::encode_value(codec<T>::name(), &detail::write_erased<T>, &x);
}

/// Decodes a value from bytes encode wrote, here or in another process.
///
/// @param bytes  the encoded value; it may come from a file or the network.
///           Need not be 8-byte aligned. A run of bytes or numbers (T a
///           string, a byte vector, a vector of int64, uint64 or double) is
///           copied out of them once, wherever they are; for any other T,
///           aligned bytes are read in place, others are copied into aligned
///           memory first. Read only during the call.
/// @return   the value. Every T with the same codec name reads the bytes
///           (an int64 reads into any signed integer type, a map into
///           std::map or std::unordered_map).
/// @throws codec_error naming the types involved when the bytes hold another
///           type ("these bytes hold a vector<float64>, not a string"); are
///           truncated, damaged, or followed by more bytes; hold a number out
///           of T's range; or break a codec_limits limit. Never undefined
///           behaviour, whatever the bytes.
/// Any thread may call it, many at once.
template <class T>
[[nodiscard]] T decode(std::string_view bytes) {
  static_assert(encodable<T>, SOMA_CODEC_MISSING);
  if constexpr (detail::one_run_of_bytes<T> || detail::one_run_of_numbers<T>) {
    if (auto run = detail::run_in(bytes, codec<T>::name(), detail::run_kind<T>)) {
      using E = typename T::value_type;
      if constexpr (detail::one_run_of_bytes<T>) {
        auto* first = reinterpret_cast<const E*>(run->data()); // bytes read as bytes
        return T(first, first + run->size());
      } else {
        T numbers(run->size() / sizeof(E));
        if (!run->empty()) // the run may sit at any address: copied, not read in place
          std::memcpy(numbers.data(), run->data(), run->size());
        return numbers;
      }
    }
  }
  std::optional<T> out;
  detail::decode_value(bytes, codec<T>::name(), &detail::read_erased<T>, &out);
  return std::move(*out);
}

#undef SOMA_CODEC_MISSING

/// The codec of a struct written as its fields, in order: derive
/// codec<T> from it and give `static std::string name()` and
/// `static auto fields(T&)` returning std::tie of the fields. T must be
/// default-constructible; every field type must be encodable. Change the
/// name when you change the fields: bytes of the old shape then fail to
/// decode with a clear error instead of filling the wrong fields.
template <class T>
struct fields_codec;

} // namespace soma

SOMA_API_END

#include "soma/codec/values.hpp"
#include "soma/codec/containers.hpp"
#include "soma/codec/fields.hpp"
