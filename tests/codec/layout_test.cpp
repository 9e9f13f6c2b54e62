// The general path's layout (schema/soma/detail/value_shape.hpp): every
// value a codec writes is laid out as Cap'n Proto's canonical form lays it,
// a large payload is copied by a second call of the codec's write, and a
// codec that writes another value the second time is refused.

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <map>
#include <vector>
#include <sys/mman.h>


#include "soma/detail/value_shape.hpp"

#include "canonical.hpp"
#include "samples.hpp"

namespace soma_test {

// A value of any shape, written through value_writer as it is held, so that
// a test can make every layout there is.
struct tree {
  soma::value_kind kind = soma::value_kind::none;
  bool flag = false;
  std::uint64_t bits = 0; ///< an int64's, uint64's or float64's
  std::string bytes;
  std::vector<std::uint64_t> numbers; ///< the bits of int64s, uint64s or float64s
  std::vector<tree> items;

  friend bool operator==(const tree&, const tree&) = default;
};

// How many times a tree's codec wrote a whole tree (its root): twice for
// an encode that took the second pass.
inline int root_writes = 0;

// Whether some Value in `t` is never written (its kind unset).
inline bool has_unset(const tree& t) {
  if (t.kind == soma::value_kind::unset)
    return true;
  for (auto& x : t.items)
    if (has_unset(x))
      return true;
  return false;
}

} // namespace soma_test

template <>
struct soma::codec<soma_test::tree> {
  using tree = soma_test::tree;
  static std::string name() { return "tree"; }
  static void write(value_writer w, const tree& t) {
    if (w.depth() == 0)
      ++soma_test::root_writes;
    switch (t.kind) {
      case value_kind::none: w.write_none(); return;
      case value_kind::boolean: w.write_bool(t.flag); return;
      case value_kind::int64: w.write_int64(static_cast<std::int64_t>(t.bits)); return;
      case value_kind::uint64: w.write_uint64(t.bits); return;
      case value_kind::float64: w.write_float64(std::bit_cast<double>(t.bits)); return;
      case value_kind::data: w.write_data(t.bytes); return;
      case value_kind::int64s:
        w.write_int64s({reinterpret_cast<const std::int64_t*>(t.numbers.data()), t.numbers.size()});
        return;
      case value_kind::uint64s: w.write_uint64s(t.numbers); return;
      case value_kind::float64s:
        w.write_float64s({reinterpret_cast<const double*>(t.numbers.data()), t.numbers.size()});
        return;
      case value_kind::list: {
        auto list = w.write_list(t.items.size());
        for (std::size_t i = 0; i < t.items.size(); ++i)
          write(list[i], t.items[i]);
        return;
      }
      default: return;
    }
  }
  static tree read(value_reader r) {
    tree t;
    t.kind = r.kind();
    switch (t.kind) {
      case value_kind::none: r.read_none(); break;
      case value_kind::boolean: t.flag = r.read_bool(); break;
      case value_kind::int64: t.bits = static_cast<std::uint64_t>(r.read_int64()); break;
      case value_kind::uint64: t.bits = r.read_uint64(); break;
      case value_kind::float64: t.bits = std::bit_cast<std::uint64_t>(r.read_float64()); break;
      case value_kind::data: t.bytes = std::string{r.read_data()}; break;
      case value_kind::int64s:
        for (auto x : r.read_int64s())
          t.numbers.push_back(static_cast<std::uint64_t>(x));
        break;
      case value_kind::uint64s: t.numbers = r.read_uint64s(); break;
      case value_kind::float64s:
        for (auto x : r.read_float64s())
          t.numbers.push_back(std::bit_cast<std::uint64_t>(x));
        break;
      case value_kind::list: {
        auto list = r.read_list();
        for (std::size_t i = 0; i < list.size(); ++i)
          t.items.push_back(read(list[i]));
        break;
      }
      default: throw soma::codec_error("unexpected kind");
    }
    return t;
  }
};

namespace {

using soma_test::tree;

// Random trees: every kind, numbers whose words canonical form truncates
// (0, false) or keeps (-0.0, NaN), empty lists and bytes, lists whose
// elements differ in size, and now and then a payload large enough for the
// second pass.
class trees {
public:
  explicit trees(std::uint64_t seed) : rng_(seed) {}

  tree make(int depth) {
    tree t;
    if (below(24) == 0) {
      t.kind = soma::value_kind::unset; // written never: a zero-sized Value
      return t;
    }
    auto pick = below(depth < 5 ? 11 : 9);
    static constexpr soma::value_kind kinds[] = {
      soma::value_kind::none,   soma::value_kind::boolean, soma::value_kind::int64,
      soma::value_kind::uint64, soma::value_kind::float64, soma::value_kind::data,
      soma::value_kind::int64s, soma::value_kind::uint64s, soma::value_kind::float64s,
      soma::value_kind::list,   soma::value_kind::list};
    t.kind = kinds[pick];
    switch (t.kind) {
      case soma::value_kind::boolean: t.flag = below(2) == 1; break;
      case soma::value_kind::int64:
      case soma::value_kind::uint64: t.bits = number(); break;
      case soma::value_kind::float64: t.bits = std::bit_cast<std::uint64_t>(real()); break;
      case soma::value_kind::data: {
        t.bytes.resize(length(1));
        for (auto& c : t.bytes)
          c = static_cast<char>(below(256));
        break;
      }
      case soma::value_kind::int64s:
      case soma::value_kind::uint64s:
      case soma::value_kind::float64s: {
        t.numbers.resize(length(8));
        for (auto& x : t.numbers)
          x = t.kind == soma::value_kind::float64s ? std::bit_cast<std::uint64_t>(real()) : number();
        break;
      }
      case soma::value_kind::list: {
        auto n = below(6);
        for (std::uint64_t i = 0; i < n; ++i)
          t.items.push_back(make(depth + 1));
        break;
      }
      default: break;
    }
    return t;
  }

private:
  std::uint64_t below(std::uint64_t n) { return rng_() % n; }
  std::uint64_t number() {
    switch (below(4)) {
      case 0: return 0;
      case 1: return std::numeric_limits<std::uint64_t>::max();
      default: return rng_() >> below(64);
    }
  }
  double real() {
    switch (below(5)) {
      case 0: return 0.0;
      case 1: return -0.0;
      case 2: return std::numeric_limits<double>::quiet_NaN();
      default: return static_cast<double>(static_cast<std::int64_t>(rng_())) / 1e6;
    }
  }
  // Elements of `size` bytes: mostly few, at times a payload of 4 KiB or
  // more (detail::value_shape::large_payload), or just under.
  std::size_t length(std::size_t size) {
    auto large = soma::detail::value_shape::large_payload / size;
    switch (below(12)) {
      case 0: return 0;
      case 1: return large;
      case 2: return large - 1;
      case 3: return large + below(3000);
      default: return below(20);
    }
  }
  std::mt19937_64 rng_;
};

// A value whose codec counts its writes.
struct counted {
  std::string bytes;
  mutable int writes = 0;
};

} // namespace

template <>
struct soma::codec<counted> {
  static std::string name() { return "counted"; }
  static void write(value_writer w, const counted& x) {
    ++x.writes;
    auto list = w.write_list(2);
    list[0].write_int64(7);
    list[1].write_data(x.bytes);
  }
  static counted read(value_reader r) {
    auto list = r.read_list(2);
    (void)list[0].read_int64();
    return counted{std::string{list[1].read_data()}};
  }
};

namespace {

// A value its codec writes over: bytes, then a list, then (last) a list of
// two whose first element is written twice too.
struct written_over {
  std::string big;
};

} // namespace

template <>
struct soma::codec<written_over> {
  static std::string name() { return "written_over"; }
  static void write(value_writer w, const written_over& x) {
    w.write_data(x.big);
    auto first = w.write_list(3);
    first[0].write_data(x.big);
    first[1].write_int64(5);
    auto last = w.write_list(2);
    last[0].write_float64s(std::vector<double>(700, 2.5));
    last[0].write_data(x.big);
    last[1].write_bool(true);
  }
  static written_over read(value_reader r) {
    auto list = r.read_list(2);
    if (!list[1].read_bool())
      throw soma::codec_error("not the last write");
    return written_over{std::string{list[0].read_data()}};
  }
};

namespace {

// A value whose codec encodes another value inside its own write.
struct nesting {
  std::vector<std::string> inner;
};

} // namespace

template <>
struct soma::codec<nesting> {
  static std::string name() { return "nesting"; }
  static void write(value_writer w, const nesting& x) {
    auto list = w.write_list(2);
    list[0].write_data(soma::encode(x.inner));
    list[1].write_data(std::string(5000, 'n'));
  }
  static nesting read(value_reader r) {
    auto list = r.read_list(2);
    return nesting{soma::decode<std::vector<std::string>>(list[0].read_data())};
  }
};

namespace {

// A run of numbers inside a list, held as a view: the general path's size
// limit, over memory nothing reads.
struct viewed {
  std::span<const double> xs;
};

} // namespace

template <>
struct soma::codec<viewed> {
  static std::string name() { return "viewed"; }
  static void write(value_writer w, const viewed& x) {
    auto list = w.write_list(1);
    list[0].write_float64s(x.xs);
  }
  static viewed read(value_reader) { return {}; }
};

namespace {

// A value its codec writes over, or writes once: the same name either way.
struct overwritten {
  bool over = false;
};

// A value whose codec writes something else on its second call, as `how`
// says, beside a payload large enough for that second call to happen.
struct fickle {
  enum class change { nothing, kind, number, small_bytes, longer_payload, skips_payload, extra_list, bad_index };
  change how = change::nothing;
  mutable int writes = 0;
};

} // namespace

template <>
struct soma::codec<overwritten> {
  static std::string name() { return "overwritten"; }
  static void write(value_writer w, const overwritten& x) {
    auto list = w.write_list(3);
    if (x.over) {
      list[0].write_data("gone");  // a pointer, then no pointer
      list[1].write_int64(77);     // a number, then a bool
      list[2].write_list(2)[0].write_int64(9);
    }
    list[0].write_none();
    list[1].write_bool(true);
    list[2].write_data("kept");
  }
  static overwritten read(value_reader r) {
    auto list = r.read_list(3);
    list[0].read_none();
    if (!list[1].read_bool() || list[2].read_data() != "kept")
      throw soma::codec_error("not the last writes");
    return {};
  }
};

template <>
struct soma::codec<fickle> {
  static std::string name() { return "fickle"; }
  static void write(value_writer w, const fickle& x) {
    using change = fickle::change;
    bool again = ++x.writes > 1;
    auto how = again ? x.how : change::nothing;
    auto list = w.write_list(how == change::extra_list ? 4 : 3);
    auto large = soma::detail::value_shape::large_payload;
    if (how != change::skips_payload)
      list[0].write_data(std::string(how == change::longer_payload ? large + 1 : large, 'p'));
    if (how == change::kind)
      list[1].write_uint64(1);
    else
      list[1].write_int64(how == change::number ? 2 : 1);
    list[2].write_data(how == change::small_bytes ? "small!" : "small.");
    if (how == change::bad_index || (!again && x.how == change::bad_index))
      list[3].write_none();
  }
  static fickle read(value_reader) { return {}; }
};

namespace {

// A value whose codec writes the first element of a list of none.
struct past_empty {};

} // namespace

template <>
struct soma::codec<past_empty> {
  static std::string name() { return "past_empty"; }
  static void write(value_writer w, const past_empty&) { w.write_list(0)[0].write_none(); }
  static past_empty read(value_reader) { return {}; }
};

namespace {

// What encoding `x` said when it refused, or "encoded" when it did not.
template <class T>
std::string refusal(const T& x) {
  try {
    (void)soma::encode(x);
    return "encoded";
  } catch (const soma::codec_error& e) {
    return e.what();
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(layout)

BOOST_AUTO_TEST_CASE(random_values_are_laid_out_as_cap_n_proto_canonicalizes_them) {
  trees make{20261208};
  int second_passes = 0;
  int unwritten = 0;
  for (int i = 0; i < 400; ++i) {
    auto t = make.make(0);
    soma_test::root_writes = 0;
    auto bytes = soma::encode(t);
    second_passes += soma_test::root_writes == 2;
    BOOST_TEST(soma_test::canonical(bytes), "value " << i);
    BOOST_TEST(soma_test::hex(soma_test::canonicalized(bytes)) == soma_test::hex(bytes), "value " << i);
    // A Value never written reads as unset, which decode refuses: only
    // its layout is checked.
    if (soma_test::has_unset(t))
      ++unwritten;
    else
      BOOST_TEST((soma::decode<tree>(bytes) == t), "value " << i);
  }
  // The premises: some took the second pass, some had a Value never
  // written, and most decoded.
  BOOST_TEST(second_passes > 20);
  BOOST_TEST(unwritten > 20);
  BOOST_TEST(unwritten < 200);
}

BOOST_AUTO_TEST_CASE(the_general_path_writes_the_bytes_the_builder_wrote) {
  // Pinned from soma 0.5.0 before the general path was laid out by hand,
  // when every value went through a Cap'n Proto builder and
  // capnp::canonicalize: empty bytes and lists (a pointer, not null), a
  // zero number (its word truncated), -0.0 (kept), a list of elements of
  // different sizes.
  BOOST_TEST(soma_test::hex(soma::encode(std::tuple<std::string, int>{"", 0}))
             == "000000000d000000000000000000020005000000a20000000c000000010001007475706c653c737472"
                "696e672c696e7436343e0000000000070000000000000001000000270000000800000001000100060000"
                "0000000000090000000200000003000000000000000000000000000000");
  BOOST_TEST(soma_test::hex(soma::encode(std::vector<std::vector<int>>{{}, {}}))
             == "000000000d000000000000000000020005000000b20000000c00000001000100766563746f723c766563"
                "746f723c696e7436343e3e000000070000000000000001000000270000000800000001000100080000000000"
                "0000090000000500000008000000000000000100000005000000");
  BOOST_TEST(soma_test::hex(soma::encode(std::optional<double>{-0.0}))
             == "000000000b000000000000000000020005000000920000000c000000010001006f7074696f6e616c3c66"
                "6c6f617436343e0000000000000007000000000000000100000017000000040000000200000005000000"
                "000000000000000000000080");
  BOOST_TEST(soma_test::hex(soma::encode(std::tuple<>{}))
             == "00000000070000000000000000000200050000004200000004000000010001007475706c653c3e0007000000"
                "0000000001000000070000000000000000000000");
  BOOST_TEST(soma_test::hex(soma::encode(std::vector<std::optional<std::int64_t>>{std::nullopt, 0, 5}))
             == "0000000015000000000000000000020005000000c20000000c00000001000100766563746f723c6f7074"
                "696f6e616c3c696e7436343e3e00070000000000000001000000370000000c0000000100010007000000"
                "00000000110000000700000007000000000000000d0000000f00000007000000000000000d0000001700"
                "0000000000000000000004000000010000000300000000000000040000000200000003000000000000"
                "000500000000000000");
}

BOOST_AUTO_TEST_CASE(a_large_payload_is_copied_by_a_second_write_and_a_small_one_is_not) {
  auto large = soma::detail::value_shape::large_payload;
  counted small{std::string(large - 1, 's')};
  auto bytes = soma::encode(small);
  BOOST_TEST(small.writes == 1);
  BOOST_TEST(soma::decode<counted>(bytes).bytes == small.bytes);
  counted big{std::string(large, 'b')};
  bytes = soma::encode(big);
  BOOST_TEST(big.writes == 2);
  BOOST_TEST(soma::decode<counted>(bytes).bytes == big.bytes);
  BOOST_TEST(soma_test::canonical(bytes));
  BOOST_TEST(soma_test::hex(soma_test::canonicalized(bytes)) == soma_test::hex(bytes));
}

BOOST_AUTO_TEST_CASE(a_value_written_over_is_laid_out_as_its_last_write) {
  // As a Cap'n Proto builder's union: the last write wins, and what the
  // earlier ones wrote is not in the message.
  written_over x{std::string(6000, 'w')};
  auto bytes = soma::encode(x);
  BOOST_TEST(soma_test::canonical(bytes));
  BOOST_TEST(soma_test::hex(soma_test::canonicalized(bytes)) == soma_test::hex(bytes));
  BOOST_TEST(soma::decode<written_over>(bytes).big == x.big);
  // The root's list of 2 and its elements: the 6000 bytes are there once.
  BOOST_TEST(bytes.size() < 6000u + 200u);
}

BOOST_AUTO_TEST_CASE(an_encode_inside_a_codec_s_write_gets_its_own_shape) {
  nesting x{{"a", std::string(5000, 'i'), ""}};
  auto bytes = soma::encode(x);
  BOOST_TEST(soma_test::canonical(bytes));
  BOOST_TEST((soma::decode<nesting>(bytes).inner == x.inner));
}

BOOST_AUTO_TEST_CASE(a_value_too_large_for_decode_is_refused_before_its_message_is_made) {
  // 2^27 doubles in a list: 1 GiB of numbers, which the first pass does not
  // copy, and 80 bytes around them (the table, the root pointer and
  // EncodedValue's two, the name, the root Value, the tag word and the
  // element).
  auto n = std::size_t{1} << 27;
  auto* p = mmap(nullptr, n * sizeof(double), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  BOOST_REQUIRE(p != MAP_FAILED);
  auto said = refusal(viewed{{static_cast<const double*>(p), n}});
  munmap(p, n * sizeof(double));
  BOOST_TEST(said
             == "cannot encode a viewed: its 1073741904 bytes are more than decode accepts "
                "(soma::codec_limits::max_bytes, 1073741824)");
}

BOOST_AUTO_TEST_CASE(the_last_write_to_a_writer_is_its_value_and_nothing_of_the_earlier_ones_stays) {
  // A codec should write one thing into each writer (docs/codec.md). One
  // that writes over gets the bytes of its last writes alone; a Cap'n Proto
  // builder, before, kept the earlier pointer or number in the message.
  auto once = soma::encode(overwritten{false});
  auto over = soma::encode(overwritten{true});
  BOOST_TEST(soma_test::hex(over) == soma_test::hex(once));
  BOOST_TEST(soma_test::canonical(over));
  (void)soma::decode<overwritten>(over);
}

BOOST_AUTO_TEST_CASE(an_unordered_map_of_large_keys_and_values_takes_the_second_pass_in_order) {
  // Its keys are ordered by their own bytes (value_bytes, each a second
  // pass of its own), inside the map's two passes.
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < 6; ++i)
    entries.emplace_back(std::string(5000 + i, static_cast<char>('a' + (i * 5) % 6)),
                         std::string(static_cast<std::size_t>(4096 * (i % 2)), static_cast<char>('0' + i)));
  std::unordered_map<std::string, std::string> one(entries.begin(), entries.end());
  std::unordered_map<std::string, std::string> other(entries.rbegin(), entries.rend());
  other.rehash(97);
  auto bytes = soma::encode(one);
  BOOST_TEST(soma_test::hex(soma::encode(other)) == soma_test::hex(bytes));
  BOOST_TEST(soma_test::canonical(bytes));
  BOOST_TEST(soma_test::hex(soma_test::canonicalized(bytes)) == soma_test::hex(bytes));
  BOOST_TEST((soma::decode<std::unordered_map<std::string, std::string>>(bytes) == one));
}

BOOST_AUTO_TEST_CASE(a_second_write_that_differs_in_any_way_it_can_be_checked_is_refused) {
  using change = fickle::change;
  auto said = [](change how) { return refusal(fickle{how}); };
  BOOST_TEST(said(change::nothing) == "encoded");
  std::string refused = "cannot encode a fickle: its codec wrote another value when called again (encode "
                        "calls it twice for a value holding a payload of 4096 bytes or more, and copies "
                        "that payload the second time): a codec's write must write the same value each time";
  for (auto how : {change::kind, change::number, change::small_bytes, change::longer_payload,
                   change::skips_payload, change::extra_list})
    BOOST_TEST(said(how) == refused, static_cast<int>(how));
}

BOOST_AUTO_TEST_CASE(an_element_past_a_list_s_end_is_refused) {
  BOOST_TEST(refusal(fickle{fickle::change::bad_index})
             == "cannot encode a fickle: element 3 of a list of 3 was written: its elements are 0 to 2");
  BOOST_TEST(refusal(past_empty{})
             == "cannot encode a past_empty: element 0 of a list of 0 was written: it has none");
}

BOOST_AUTO_TEST_CASE(an_encode_after_a_refusal_on_the_same_thread_gives_the_same_bytes) {
  std::map<std::string, std::int64_t> m{{"a", 1}, {"b", 2}};
  auto before = soma::encode(m);
  (void)refusal(fickle{fickle::change::number});  // thrown in the second pass
  (void)refusal(fickle{fickle::change::bad_index}); // and in the first
  BOOST_TEST(soma_test::hex(soma::encode(m)) == soma_test::hex(before));
}

BOOST_AUTO_TEST_SUITE_END()
