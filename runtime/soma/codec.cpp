#include "soma/codec.hpp"

#include <bit>
#include <cstring>
#include <span>
#include <new>
#include <optional>
#include <string_view>
#include <type_traits>

#include <capnp/any.h>
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>

#include "soma/detail/capnp.hpp"
#include "soma/detail/run_message.hpp"
#include "soma/schema/value.capnp.h"

namespace soma {

namespace {

using value_builder = schema::Value::Builder;
using value_list_builder = capnp::List<schema::Value>::Builder;
using value_handle = schema::Value::Reader;
using value_list_handle = capnp::List<schema::Value>::Reader;

// The most elements in one Cap'n Proto list (and bytes in one Data).
constexpr std::size_t max_list = (std::size_t{1} << 29) - 1;

// Each level of nesting is a list pointer and the struct of its element;
// the root struct and its value struct come on top. With this limit, values
// at depth max_depth read, and a list one level deeper does not.
constexpr int nesting_limit = 2 * static_cast<int>(codec_limits::max_depth) + 2;

} // namespace

// Puts Cap'n Proto handles into the writers' and readers' storage and takes
// them out again.
struct detail::codec_access {
  template <class H>
  static void put(handle_storage& s, const H& h) {
    static_assert(sizeof(H) <= sizeof(s.bytes) && alignof(H) <= alignof(handle_storage)
                  && std::is_trivially_copyable_v<H> && std::is_trivially_destructible_v<H>);
    ::new (static_cast<void*>(s.bytes)) H(h);
  }
  template <class H>
  static const H& get(const handle_storage& s) {
    return *std::launder(reinterpret_cast<const H*>(s.bytes));
  }
  // A copy of a builder handle: builders write into the message through
  // any copy.
  template <class H>
  static H get_mut(const handle_storage& s) {
    return *std::launder(reinterpret_cast<const H*>(s.bytes));
  }
  static value_writer writer(value_builder b, unsigned depth) {
    value_writer w;
    put(w.h_, b);
    w.depth_ = depth;
    return w;
  }
  static value_reader reader(value_handle r) {
    value_reader out;
    put(out.h_, r);
    return out;
  }
};

using access = detail::codec_access;

namespace {

// Errors while writing; encode_value puts the type being encoded in front.
void check_size(std::size_t n, const char* what) {
  if (n > max_list)
    throw codec_error(std::string{what} + " of " + std::to_string(n)
                      + " is more than Cap'n Proto holds in one list (2^29 - 1)");
}

void check_depth(unsigned depth) {
  if (depth + 1 > codec_limits::max_depth)
    throw codec_error("it is nested deeper than " + std::to_string(codec_limits::max_depth)
                      + " levels of lists (soma::codec_limits::max_depth), which decode refuses");
}

std::string_view describe(value_kind k) noexcept {
  switch (k) {
    case value_kind::none: return "none";
    case value_kind::boolean: return "a bool";
    case value_kind::int64: return "an int64";
    case value_kind::uint64: return "a uint64";
    case value_kind::float64: return "a float64";
    case value_kind::data: return "bytes";
    case value_kind::list: return "a list";
    case value_kind::int64s: return "a list of int64";
    case value_kind::uint64s: return "a list of uint64";
    case value_kind::float64s: return "a list of float64";
    default: return "nothing";
  }
}

// A type name read from the wire, fit to be quoted in an error.
std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 120))
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > 120)
    out += "...";
  return out;
}

// Whether a struct takes no bytes: then every element of its list does too.
bool empty_struct(value_handle v) {
  capnp::AnyStruct::Reader any{v};
  return any.getDataSection().size() == 0 && any.getPointerSection().size() == 0;
}

std::string_view view(capnp::Data::Reader d) {
  return {reinterpret_cast<const char*>(d.begin()), d.size()};
}

// A list of 8-byte numbers is, on a little-endian machine, its elements'
// own bytes: copied in one go, not one element at a time.
constexpr bool wire_is_native = std::endian::native == std::endian::little;

template <class T, class List>
std::vector<T> copy_numbers(List list) {
  std::vector<T> out(list.size());
  if constexpr (wire_is_native) {
    auto raw = capnp::AnyList::Reader{list}.getRawBytes();
    if (raw.size() == out.size() * sizeof(T)) {
      if (!out.empty())
        std::memcpy(out.data(), raw.begin(), raw.size());
      return out;
    }
  }
  for (unsigned i = 0; i < list.size(); ++i)
    out[i] = list[i];
  return out;
}

// Fills a list of 8-byte numbers just made by init*s(n) from `xs`.
template <class T, class ListBuilder>
void fill_numbers(ListBuilder list, std::span<const T> xs) {
  if constexpr (wire_is_native) {
    auto raw = capnp::AnyList::Reader{list.asReader()}.getRawBytes();
    if (raw.size() == xs.size_bytes()) {
      if (!xs.empty()) // the builder's own segment, seen through its reader
        std::memcpy(const_cast<kj::byte*>(raw.begin()), xs.data(), raw.size());
      return;
    }
  }
  for (unsigned i = 0; i < xs.size(); ++i)
    list.set(i, xs[i]);
}

// The canonical form of the struct `root`, written straight into the string
// returned: after `header` bytes (0 or the 8-byte segment table of a
// one-segment message), Cap'n Proto's canonical single segment (root pointer
// first, objects in pre-order, data and pointer sections truncated). This is
// capnp::canonicalize() without its two intermediate arrays: for a large
// value each fresh array costs a page fault per 4 KiB.
template <class Root>
std::string canonical(typename Root::Reader root, std::size_t header) {
  auto room = root.totalSize().wordCount + 1; // + the root pointer
  std::string out(header + room * sizeof(capnp::word), '\0');
  // operator new aligns the string's buffer to 16 bytes; the small-string
  // buffer never applies (a message is at least 16 bytes).
  auto* first = reinterpret_cast<capnp::word*>(out.data() + header);
  KJ_REQUIRE(reinterpret_cast<std::uintptr_t>(first) % alignof(capnp::word) == 0);
  capnp::FlatMessageBuilder flat{kj::arrayPtr(first, room)};
  flat.initRoot<capnp::AnyPointer>().setCanonicalAs<Root>(root);
  auto used = flat.getSegmentsForOutput()[0].size();
  out.resize(header + used * sizeof(capnp::word));
  if (header != 0) {
    auto n = static_cast<std::uint32_t>(used);
    unsigned char table[8] = {0, 0, 0, 0, static_cast<unsigned char>(n),
                              static_cast<unsigned char>(n >> 8),
                              static_cast<unsigned char>(n >> 16),
                              static_cast<unsigned char>(n >> 24)};
    std::memcpy(out.data(), table, sizeof table);
  }
  return out;
}

} // namespace

std::string_view to_string(value_kind k) noexcept {
  switch (k) {
    case value_kind::none: return "none";
    case value_kind::boolean: return "bool";
    case value_kind::int64: return "int64";
    case value_kind::uint64: return "uint64";
    case value_kind::float64: return "float64";
    case value_kind::data: return "data";
    case value_kind::list: return "list";
    case value_kind::int64s: return "int64s";
    case value_kind::uint64s: return "uint64s";
    case value_kind::float64s: return "float64s";
    default: return "nothing";
  }
}

// -- value_writer ------------------------------------------------------------

void value_writer::write_none() {
  access::get_mut<value_builder>(h_).setNone();
}

void value_writer::write_bool(bool x) {
  access::get_mut<value_builder>(h_).setBoolean(x);
}

void value_writer::write_int64(std::int64_t x) {
  access::get_mut<value_builder>(h_).setInt64(x);
}

void value_writer::write_uint64(std::uint64_t x) {
  access::get_mut<value_builder>(h_).setUint64(x);
}

void value_writer::write_float64(double x) {
  access::get_mut<value_builder>(h_).setFloat64(x);
}

void value_writer::write_data(std::string_view bytes) {
  check_size(bytes.size(), "bytes");
  check_depth(depth_);
  access::get_mut<value_builder>(h_).setData(
    kj::arrayPtr(reinterpret_cast<const kj::byte*>(bytes.data()), bytes.size()));
}

void value_writer::write_data(std::span<const std::byte> bytes) {
  write_data(std::string_view{reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

list_writer value_writer::write_list(std::size_t size) {
  check_size(size, "a list");
  check_depth(depth_);
  list_writer out;
  access::put(out.h_,
              access::get_mut<value_builder>(h_).initList(static_cast<unsigned>(size)));
  out.size_ = size;
  out.depth_ = depth_ + 1;
  return out;
}

void value_writer::write_int64s(std::span<const std::int64_t> xs) {
  check_size(xs.size(), "a list");
  check_depth(depth_);
  fill_numbers<std::int64_t>(
    access::get_mut<value_builder>(h_).initInt64s(static_cast<unsigned>(xs.size())), xs);
}

void value_writer::write_uint64s(std::span<const std::uint64_t> xs) {
  check_size(xs.size(), "a list");
  check_depth(depth_);
  fill_numbers<std::uint64_t>(
    access::get_mut<value_builder>(h_).initUint64s(static_cast<unsigned>(xs.size())), xs);
}

void value_writer::write_float64s(std::span<const double> xs) {
  check_size(xs.size(), "a list");
  check_depth(depth_);
  fill_numbers<double>(
    access::get_mut<value_builder>(h_).initFloat64s(static_cast<unsigned>(xs.size())), xs);
}

value_writer list_writer::operator[](std::size_t i) const {
  auto list = access::get_mut<value_list_builder>(h_);
  return access::writer(list[static_cast<unsigned>(i)], depth_);
}

// -- value_reader ------------------------------------------------------------

value_kind value_reader::kind() const noexcept {
  switch (access::get<value_handle>(h_).which()) {
    case schema::Value::NONE: return value_kind::none;
    case schema::Value::BOOLEAN: return value_kind::boolean;
    case schema::Value::INT64: return value_kind::int64;
    case schema::Value::UINT64: return value_kind::uint64;
    case schema::Value::FLOAT64: return value_kind::float64;
    case schema::Value::DATA: return value_kind::data;
    case schema::Value::LIST: return value_kind::list;
    case schema::Value::INT64S: return value_kind::int64s;
    case schema::Value::UINT64S: return value_kind::uint64s;
    case schema::Value::FLOAT64S: return value_kind::float64s;
    default: return value_kind::unset;
  }
}

void value_reader::mismatch(value_kind wanted) const {
  throw codec_error("the bytes are malformed: expected " + std::string{describe(wanted)}
                    + ", found " + std::string{describe(kind())});
}

void value_reader::read_none() const {
  if (kind() != value_kind::none)
    mismatch(value_kind::none);
}

bool value_reader::read_bool() const {
  if (kind() != value_kind::boolean)
    mismatch(value_kind::boolean);
  return access::get<value_handle>(h_).getBoolean();
}

std::int64_t value_reader::read_int64() const {
  if (kind() != value_kind::int64)
    mismatch(value_kind::int64);
  return access::get<value_handle>(h_).getInt64();
}

std::uint64_t value_reader::read_uint64() const {
  if (kind() != value_kind::uint64)
    mismatch(value_kind::uint64);
  return access::get<value_handle>(h_).getUint64();
}

double value_reader::read_float64() const {
  if (kind() != value_kind::float64)
    mismatch(value_kind::float64);
  return access::get<value_handle>(h_).getFloat64();
}

std::string_view value_reader::read_data() const {
  if (kind() != value_kind::data)
    mismatch(value_kind::data);
  return view(access::get<value_handle>(h_).getData());
}

list_reader value_reader::read_list() const {
  if (kind() != value_kind::list)
    mismatch(value_kind::list);
  auto list = access::get<value_handle>(h_).getList();
  // Every Value encode writes takes at least a word; a list of empty ones
  // can only be made by hand, to claim many elements in few bytes.
  if (list.size() > 0 && empty_struct(list[0]))
    throw codec_error("the bytes are malformed: a list of " + std::to_string(list.size())
                      + " elements that take no bytes, which encode never writes");
  list_reader out;
  access::put(out.h_, list);
  out.size_ = list.size();
  return out;
}

list_reader value_reader::read_list(std::size_t size) const {
  auto out = read_list();
  if (out.size() != size)
    throw codec_error("the bytes are malformed: expected a list of " + std::to_string(size)
                      + ", found a list of "
                      + std::to_string(out.size()));
  return out;
}

std::vector<std::int64_t> value_reader::read_int64s() const {
  if (kind() != value_kind::int64s)
    mismatch(value_kind::int64s);
  return copy_numbers<std::int64_t>(access::get<value_handle>(h_).getInt64s());
}

std::vector<std::uint64_t> value_reader::read_uint64s() const {
  if (kind() != value_kind::uint64s)
    mismatch(value_kind::uint64s);
  return copy_numbers<std::uint64_t>(access::get<value_handle>(h_).getUint64s());
}

std::vector<double> value_reader::read_float64s() const {
  if (kind() != value_kind::float64s)
    mismatch(value_kind::float64s);
  return copy_numbers<double>(access::get<value_handle>(h_).getFloat64s());
}

value_reader list_reader::operator[](std::size_t i) const {
  return access::reader(access::get<value_list_handle>(h_)[static_cast<unsigned>(i)]);
}

// -- encode and decode -------------------------------------------------------

namespace detail {

void out_of_range(std::string_view held, const std::string& value, std::string_view target,
                  const std::string& low, const std::string& high) {
  throw codec_error("the " + std::string{held} + " " + value + " is out of range for "
                    + std::string{target} + " (" + low + " to " + high + ")");
}

void malformed(const std::string& why) {
  throw codec_error("the bytes are malformed: " + why);
}

namespace {

// "a vector<int64>", "an int64".
std::string with_article(std::string_view name) {
  bool vowel = !name.empty() && std::string_view{"aeioAEIO"}.find(name[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string{name};
}

// The canonical message of a value named `name`, whose Value `write` writes.
template <class Write>
std::string encode_with(const std::string& name, Write write) {
  auto cannot = [&](std::string_view what) {
    return codec_error("cannot encode " + with_article(name) + ": " + std::string{what});
  };
  return capnp_errors_as(cannot, [&] {
    // A small first segment: most values are small, and the canonical copy
    // below is one segment whatever this one grew to.
    capnp::MallocMessageBuilder msg{64};
    auto root = msg.initRoot<schema::EncodedValue>();
    root.setType(name);
    try {
      write(root.initValue());
    } catch (const codec_error& e) {
      throw codec_error("cannot encode " + with_article(name) + ": " + e.what());
    }
    auto out = canonical<schema::EncodedValue>(root.asReader(), sizeof(capnp::word));
    if (out.size() > codec_limits::max_bytes)
      throw codec_error("cannot encode " + with_article(name) + ": its " + std::to_string(out.size())
                        + " bytes are more than decode accepts (soma::codec_limits::max_bytes, "
                        + std::to_string(codec_limits::max_bytes) + ")");
    return out;
  });
}

// The canonical message of a value that is one run (detail/run_message.hpp),
// after the limits a message encode_with builds is held to, said as it says
// them: `what` is "bytes" or "a list".
std::string encode_run(const std::string& name, run_shape shape, std::size_t count, const void* run,
                       const char* what) {
  auto cannot = [&](const std::string& why) {
    return codec_error("cannot encode " + with_article(name) + ": " + why);
  };
  if (count > max_list)
    throw cannot(std::string{what} + " of " + std::to_string(count)
                 + " is more than Cap'n Proto holds in one list (2^29 - 1)");
  if (name.size() + 1 > max_list)
    throw cannot("its type's name of " + std::to_string(name.size())
                 + " bytes is more than Cap'n Proto holds in one Text (2^29 - 2)");
  auto total = run_message_size(name, shape.bytes(count));
  if (total > codec_limits::max_bytes)
    throw cannot("its " + std::to_string(total) + " bytes are more than decode accepts "
                 + "(soma::codec_limits::max_bytes, " + std::to_string(codec_limits::max_bytes) + ")");
  return run_message(name, shape, count, run);
}

} // namespace

std::string encode_value(const std::string& name, write_fn write, const void* x) {
  return encode_with(name, [&](value_builder v) { write(access::writer(v, 0), x); });
}

std::string encode_bytes(const std::string& name, std::string_view bytes) {
  return encode_run(name, bytes_run, bytes.size(), bytes.data(), "bytes");
}

std::string encode_numbers(const std::string& name, std::span<const std::int64_t> xs) {
  return encode_run(name, int64s_run, xs.size(), xs.data(), "a list");
}

std::string encode_numbers(const std::string& name, std::span<const std::uint64_t> xs) {
  return encode_run(name, uint64s_run, xs.size(), xs.data(), "a list");
}

std::string encode_numbers(const std::string& name, std::span<const double> xs) {
  return encode_run(name, float64s_run, xs.size(), xs.data(), "a list");
}

std::optional<std::string_view> run_in(std::string_view bytes, const std::string& name, value_kind kind) {
  if (bytes.size() > codec_limits::max_bytes)
    return std::nullopt; // decode_value refuses it, and says so
  switch (kind) {
    case value_kind::data: return run_of(bytes, name, bytes_run);
    case value_kind::int64s: return run_of(bytes, name, int64s_run);
    case value_kind::uint64s: return run_of(bytes, name, uint64s_run);
    case value_kind::float64s: return run_of(bytes, name, float64s_run);
    default: return std::nullopt;
  }
}

std::string value_bytes(write_fn write, const void* x) {
  auto as_key = [](std::string_view what) { return codec_error("a map's key: " + std::string{what}); };
  return capnp_errors_as(as_key, [&] {
    capnp::MallocMessageBuilder msg{16};
    auto root = msg.initRoot<schema::Value>();
    write(access::writer(root, 0), x);
    return canonical<schema::Value>(root.asReader(), 0);
  });
}

void decode_value(std::string_view bytes, const std::string& name, read_fn read, void* out) {
  auto fail = [&](const std::string& why) {
    return codec_error("cannot decode " + with_article(name) + ": " + why);
  };
  constexpr auto word = sizeof(capnp::word);
  if (bytes.size() > codec_limits::max_bytes)
    throw fail(std::to_string(bytes.size()) + " bytes is more than decode accepts "
               "(soma::codec_limits::max_bytes, " + std::to_string(codec_limits::max_bytes) + ")");
  if (bytes.size() < 2 * word || bytes.size() % word != 0)
    throw fail(std::to_string(bytes.size())
               + " bytes is not an encoded value (that is a whole number of 8-byte words, at "
                 "least 16): the bytes are truncated or were never one");

  // Cap'n Proto reads whole words in place; bytes from LMDB or a socket
  // need not be 8-byte aligned, so those are copied first.
  kj::Array<capnp::word> copy;
  kj::ArrayPtr<const capnp::word> words;
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % alignof(capnp::word) == 0) {
    words = {reinterpret_cast<const capnp::word*>(bytes.data()), bytes.size() / word};
  } else {
    copy = kj::heapArray<capnp::word>(bytes.size() / word);
    std::memcpy(copy.begin(), bytes.data(), bytes.size());
    words = copy;
  }

  capnp::ReaderOptions limits;
  // Honest bytes are read once; aliased pointers may not make decode read
  // more than twice what it was given (see codec_limits).
  limits.traversalLimitInWords = 2 * words.size() + 64;
  limits.nestingLimit = nesting_limit;
  auto refused = [&](std::string_view what) {
    if (what.find("deeply-nested") != std::string_view::npos)
      return fail("the value is nested deeper than " + std::to_string(codec_limits::max_depth)
                  + " levels of lists (soma::codec_limits::max_depth)");
    if (what.find("traversal limit") != std::string_view::npos)
      return fail("the bytes point at more data than they hold (Cap'n Proto's traversal limit): "
                  "they are damaged or were made to attack the reader");
    return fail("the bytes are truncated or damaged (" + std::string{what} + ")");
  };
  capnp_errors_as(refused, [&] {
    capnp::FlatArrayMessageReader message{words, limits};
    if (message.getEnd() != words.end())
      throw fail(std::to_string((words.end() - message.getEnd()) * word)
                 + " bytes follow the encoded value: these are not the bytes encode wrote");
    auto root = message.getRoot<schema::EncodedValue>();
    auto type = root.getType();
    std::string_view held{type.cStr(), type.size()};
    if (held != name) {
      if (held.empty())
        throw fail("these bytes hold no type name: they are not an encoded value");
      throw codec_error("these bytes hold " + with_article(printable(held)) + ", not "
                        + with_article(name));
    }
    // Whatever a codec's read throws, the type being decoded goes in front.
    try {
      read(access::reader(root.getValue()), out);
    } catch (const codec_error& e) {
      throw fail(e.what());
    }
  });
}

} // namespace detail

} // namespace soma
