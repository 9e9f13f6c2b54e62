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
#include "soma/detail/value_shape.hpp"
#include "soma/schema/value.capnp.h"

namespace soma {

namespace {

using value_handle = schema::Value::Reader;
using value_list_handle = capnp::List<schema::Value>::Reader;

// The most elements in one Cap'n Proto list (and bytes in one Data).
constexpr std::size_t max_list = (std::size_t{1} << 29) - 1;

// Each level of nesting is a list pointer and the struct of its element;
// the root struct and its value struct come on top. With this limit, values
// at depth max_depth read, and a list one level deeper does not.
constexpr int nesting_limit = 2 * static_cast<int>(codec_limits::max_depth) + 2;

} // namespace

namespace detail {

/// A codec's write, recorded into a value_shape (the first pass), or copying
/// the large payloads into the message laid out from it (the second: the
/// same write called again; detail/value_shape.hpp).
struct value_writing {
  value_shape& shape;
  char* message = nullptr;          ///< the second pass: the message's first word
  std::vector<std::uint32_t> seen;  ///< the second pass: each node's writes so far
  std::uint32_t next = 1;           ///< the second pass: the node a new list's first element is
  std::size_t filled = 0;           ///< the second pass: large payloads copied

  [[nodiscard]] bool second() const noexcept { return message != nullptr; }
};

/// What a value_writer or list_writer holds: the writing, and its node (a
/// list_writer's first element).
struct writer_handle {
  value_writing* writing;
  std::uint32_t node;
};

} // namespace detail

// Puts handles into the writers' and readers' storage and takes them out
// again.
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
  static value_writer writer(value_writing* writing, std::uint32_t node, unsigned depth) {
    value_writer w;
    put(w.h_, writer_handle{writing, node});
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

// Errors while writing, and the limits of a message; `encoding` puts the
// type being encoded in front.
void check_size(std::size_t n, const char* what) {
  if (n > max_list)
    throw codec_error(std::string{what} + " of " + std::to_string(n)
                      + " is more than Cap'n Proto holds in one list (2^29 - 1)");
}

// A message of `total` bytes: one decode accepts.
void check_total(std::size_t total) {
  if (total > codec_limits::max_bytes)
    throw codec_error("its " + std::to_string(total) + " bytes are more than decode accepts "
                      + "(soma::codec_limits::max_bytes, " + std::to_string(codec_limits::max_bytes) + ")");
}

// The type's name of an EncodedValue, a Text: its bytes and NUL in one list.
void check_name(const std::string& name) {
  if (name.size() + 1 > max_list)
    throw codec_error("its type's name of " + std::to_string(name.size())
                      + " bytes is more than Cap'n Proto holds in one Text (2^29 - 2)");
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

using detail::value_shape;
using detail::value_writing;
using detail::writer_handle;

[[noreturn]] void written_otherwise() {
  throw codec_error("its codec wrote another value when called again (encode calls it twice for a "
                    "value holding a payload of "
                    + std::to_string(value_shape::large_payload)
                    + " bytes or more, and copies that payload the second time): a codec's write "
                      "must write the same value each time");
}

// The most Values one value holds: each takes a word at least, and decode
// accepts codec_limits::max_bytes.
constexpr std::size_t max_values = codec_limits::max_bytes / sizeof(capnp::word);

// The node a write records into, emptied, in the first pass: the last
// write to a writer is its value, and nothing of the earlier ones stays
// (a Cap'n Proto builder kept parts of them; docs/codec.md, "A codec by
// hand").
value_shape::node& recorded(writer_handle h, std::uint16_t tag) {
  auto& n = h.writing->shape.nodes[h.node];
  n = value_shape::node{.head = tag, .writes = n.writes + 1};
  return n;
}

// In the second pass: whether this is the node's last write, the one the
// first pass laid out, then checked to be the same kind of write.
bool last_write(writer_handle h, std::uint16_t tag) {
  auto& w = *h.writing;
  if (h.node >= w.seen.size())
    written_otherwise();
  auto& n = w.shape.nodes[h.node];
  if (++w.seen[h.node] != n.writes)
    return false;
  if (n.kind() != tag)
    written_otherwise();
  return true;
}

// A scalar's write: its head (tag, and a bool) and its number.
void write_scalar(writer_handle h, std::uint16_t tag, std::uint32_t flags, std::uint64_t number) {
  if (h.writing->second()) {
    if (last_write(h, tag)) {
      auto& n = h.writing->shape.nodes[h.node];
      if (n.head != (tag | flags) || n.number != number)
        written_otherwise();
    }
    return;
  }
  auto& n = recorded(h, tag);
  n.head |= flags;
  n.number = number;
}

// A payload's write: bytes, or a list of numbers (`count` of them in
// `bytes`). A small one is copied into the shape; a large one is copied
// straight into the message by the second pass.
void write_payload(writer_handle h, std::uint16_t tag, std::size_t count, const void* bytes, std::size_t size) {
  auto& w = *h.writing;
  if (w.second()) {
    if (!last_write(h, tag))
      return;
    auto& n = w.shape.nodes[h.node];
    if (n.length != count)
      written_otherwise();
    if (!n.large()) {
      if (size != 0 && std::memcmp(w.shape.payloads.data() + n.at, bytes, size) != 0)
        written_otherwise();
    } else if (n.at != value_shape::unplaced) {
      std::memcpy(w.message + std::size_t{n.at} * sizeof(capnp::word), bytes, size);
      ++w.filled;
    }
    return;
  }
  auto& kept = w.shape.payloads;
  if (size < value_shape::large_payload && kept.size() + size > codec_limits::max_bytes)
    throw codec_error("its codec wrote more than " + std::to_string(codec_limits::max_bytes)
                      + " bytes, more than decode accepts (soma::codec_limits::max_bytes)");
  auto& n = recorded(h, tag);
  n.length = static_cast<std::uint32_t>(count);
  if (n.large()) {
    n.at = value_shape::unplaced;
  } else {
    n.at = static_cast<std::uint32_t>(kept.size());
    kept.append(static_cast<const char*>(bytes), size);
  }
}

// The value_shape a thread's encodes record into, kept between them for
// its room; a codec that encodes inside its own write gets one of its own.
class shape_lease {
public:
  shape_lease() : mine_(!busy) {
    if (mine_)
      busy = true;
  }
  ~shape_lease() {
    if (!mine_)
      return;
    kept.clear();
    // Room kept for the next encode on this thread, at most 192 KiB (4096
    // nodes of 32 bytes, 64 KiB of payloads), since every thread that
    // encodes keeps its own: a larger value's shape is given back, and the
    // next such value allocates its own, a small part of what encoding it
    // costs.
    if (kept.nodes.capacity() > 4096)
      kept.nodes = {};
    if (kept.payloads.capacity() > 65536)
      kept.payloads = {};
    busy = false;
  }
  shape_lease(const shape_lease&) = delete;
  shape_lease& operator=(const shape_lease&) = delete;

  value_shape& shape() noexcept { return mine_ ? kept : own_; }

private:
  static thread_local value_shape kept;
  static thread_local bool busy;
  bool mine_;
  value_shape own_;
};

thread_local value_shape shape_lease::kept;
thread_local bool shape_lease::busy = false;

// Records `write` of `x` into `shape` (the first pass).
void record(value_shape& shape, detail::write_fn write, const void* x) {
  shape.nodes.emplace_back();
  value_writing w{shape};
  write(access::writer(&w, 0, 0), x);
}

// Copies the large payloads of `x` into `message`, laid out from `shape`
// (the second pass), when there are any.
void fill(value_shape& shape, detail::write_fn write, const void* x, char* message) {
  if (shape.placed == 0)
    return;
  value_writing w{shape, message};
  w.seen.assign(shape.nodes.size(), 0);
  write(access::writer(&w, 0, 0), x);
  if (w.filled != shape.placed || w.next != shape.nodes.size())
    written_otherwise();
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
  write_scalar(access::get<writer_handle>(h_), detail::none_tag, 0, 0);
}

void value_writer::write_bool(bool x) {
  write_scalar(access::get<writer_handle>(h_), detail::boolean_tag, x ? detail::boolean_true : 0, 0);
}

void value_writer::write_int64(std::int64_t x) {
  write_scalar(access::get<writer_handle>(h_), detail::int64_tag, 0, std::bit_cast<std::uint64_t>(x));
}

void value_writer::write_uint64(std::uint64_t x) {
  write_scalar(access::get<writer_handle>(h_), detail::uint64_tag, 0, x);
}

void value_writer::write_float64(double x) {
  write_scalar(access::get<writer_handle>(h_), detail::float64_tag, 0, std::bit_cast<std::uint64_t>(x));
}

void value_writer::write_data(std::string_view bytes) {
  check_size(bytes.size(), "bytes");
  check_depth(depth_);
  write_payload(access::get<writer_handle>(h_), detail::data_tag, bytes.size(), bytes.data(), bytes.size());
}

void value_writer::write_data(std::span<const std::byte> bytes) {
  write_data(std::string_view{reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

list_writer value_writer::write_list(std::size_t size) {
  check_size(size, "a list");
  check_depth(depth_);
  auto h = access::get<writer_handle>(h_);
  auto& w = *h.writing;
  std::uint32_t first;
  if (w.second()) {
    // The elements take the nodes the first pass gave them, in the same order.
    first = w.next;
    if (size > w.shape.nodes.size() - first)
      written_otherwise();
    w.next += static_cast<std::uint32_t>(size);
    if (last_write(h, detail::list_tag)) {
      auto& n = w.shape.nodes[h.node];
      if (n.length != size || n.at != first)
        written_otherwise();
    }
  } else {
    auto& nodes = w.shape.nodes;
    if (size > max_values - nodes.size())
      throw codec_error("a list of " + std::to_string(size) + " would make it hold more than "
                        + std::to_string(max_values)
                        + " values, more than decode accepts (each takes 8 bytes at least; "
                          "soma::codec_limits::max_bytes)");
    first = static_cast<std::uint32_t>(nodes.size());
    nodes.resize(nodes.size() + size);
    auto& n = recorded(h, detail::list_tag);
    n.length = static_cast<std::uint32_t>(size);
    n.at = first;
  }
  list_writer out;
  access::put(out.h_, writer_handle{h.writing, first});
  out.size_ = size;
  out.depth_ = depth_ + 1;
  return out;
}

void value_writer::write_int64s(std::span<const std::int64_t> xs) {
  check_size(xs.size(), "a list");
  check_depth(depth_);
  write_payload(access::get<writer_handle>(h_), detail::int64s_tag, xs.size(), xs.data(), xs.size_bytes());
}

void value_writer::write_uint64s(std::span<const std::uint64_t> xs) {
  check_size(xs.size(), "a list");
  check_depth(depth_);
  write_payload(access::get<writer_handle>(h_), detail::uint64s_tag, xs.size(), xs.data(), xs.size_bytes());
}

void value_writer::write_float64s(std::span<const double> xs) {
  check_size(xs.size(), "a list");
  check_depth(depth_);
  write_payload(access::get<writer_handle>(h_), detail::float64s_tag, xs.size(), xs.data(), xs.size_bytes());
}

value_writer list_writer::operator[](std::size_t i) const {
  if (i >= size_)
    throw codec_error("element " + std::to_string(i) + " of a list of " + std::to_string(size_)
                      + " was written: "
                      + (size_ == 0 ? std::string{"it has none"} : "its elements are 0 to " + std::to_string(size_ - 1)));
  auto h = access::get<writer_handle>(h_);
  return access::writer(h.writing, h.node + static_cast<std::uint32_t>(i), depth_);
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

// What `f` returns, a codec_error it throws said of the value named
// `name` ("cannot encode a T: ...").
template <class F>
std::string encoding(const std::string& name, F&& f) {
  try {
    return f();
  } catch (const codec_error& e) {
    throw codec_error("cannot encode " + with_article(name) + ": " + e.what());
  }
}

// The canonical message of a value named `name`, whose Value `write`
// writes: recorded, sized, laid out (detail/value_shape.hpp).
std::string encode_with(const std::string& name, write_fn write, const void* x) {
  return encoding(name, [&] {
    shape_lease lease;
    auto& shape = lease.shape();
    record(shape, write, x);
    check_name(name);
    auto total = encoded_value_size(shape, name);
    check_total(total);
    auto out = encoded_value_message(shape, name, total);
    fill(shape, write, x, out.data() + sizeof(capnp::word));
    return out;
  });
}

// The canonical message of a value that is one run (detail/run_message.hpp),
// held to the limits encode_with holds a message to, said as it says them:
// `what` is "bytes" or "a list".
std::string encode_run(const std::string& name, run_shape shape, std::size_t count, const void* run,
                       const char* what) {
  return encoding(name, [&] {
    check_size(count, what);
    check_name(name);
    check_total(run_message_size(name, shape.bytes(count)));
    return run_message(name, shape, count, run);
  });
}

} // namespace

std::string encode_value(const std::string& name, write_fn write, const void* x) {
  return encode_with(name, write, x);
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
  shape_lease lease;
  auto& shape = lease.shape();
  record(shape, write, x);
  auto size = value_message_size(shape);
  check_total(size);
  auto out = value_message(shape, size);
  fill(shape, write, x, out.data());
  return out;
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
