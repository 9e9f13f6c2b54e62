#include "soma/detail/fact_lists.hpp"

#include <array>
#include <span>
#include <string>

#include "soma/detail/capnp.hpp"
#include "soma/detail/run_words.hpp"

namespace soma::detail {

namespace {

// The engine's words in the order of schema Word (1, 2, ...).
constexpr std::array<std::string_view, 23> engine_words = {
  "ran",  "failed", "recalled", "kept",  "items",    "left", "finished", "broke",
  "machine", "node", "began_us", "took_us", "error",  "bytes", "host",  "done",
  "of",   "id",     "busy",     "memory", "cores",   "up_us", "served"};

// Cap'n Proto Text ends at the first NUL, so a NUL inside a name or a key
// would cut off everything after it: it is written as U+FFFD instead.
std::string without_nul(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (c == '\0')
      out += "\xEF\xBF\xBD";
    else
      out += c;
  return out;
}

capnp::Text::Reader text_for_capnp(std::string_view s, std::string& keep) {
  if (s.find('\0') == std::string_view::npos)
    return as_text(s);
  keep = without_nul(s);
  return as_text(keep);
}

[[noreturn]] void unknown_word(schema::Word w) {
  throw undecodable("engine word " + std::to_string(static_cast<unsigned>(w))
                    + " is not one this soma knows (a newer soma wrote it)");
}

// Word `n` of the run's words, which a format-4 blob names.
std::string_view word_at(const run_words* words, std::uint32_t n) {
  if (auto* w = words ? words->at(n) : nullptr)
    return *w;
  throw undecodable("it names word " + std::to_string(n) + " of its run's words, which hold "
                    + std::to_string(words ? words->size() : 0));
}

// The fields a format-4 fact holds in its struct (Fact.held): each its own
// bit, in this order when several lead the fact's fields.
enum held_bit : std::uint8_t { held_node = 1, held_began = 2, held_took = 4, held_value = 8 };
constexpr std::uint8_t held_all = 15;

// Sets in `f` as many of `x`'s leading fields as it can hold, in the order
// node (a text the run's words number), began_us, took_us (integers),
// value (a real), and returns how many: a field of another key or kind,
// or out of that order, ends them, and it and every later one are entries.
std::size_t hold(schema::Fact::Builder f, const fact& x, run_words& words) {
  std::uint8_t held = 0;
  std::size_t k = 0;
  for (; k < x.fields.size(); ++k) {
    auto& [key, value] = x.fields[k];
    if (held < held_node && key == "node" && value.is_text()) {
      auto n = words.number_of(value.text());
      if (n == 0)
        break;
      f.setNodeAt(n);
      held |= held_node;
    } else if (held < held_began && key == "began_us" && value.is_integer()) {
      f.setBeganUs(value.integer_or(0));
      held |= held_began;
    } else if (held < held_took && key == "took_us" && value.is_integer()) {
      f.setTookUs(value.integer_or(0));
      held |= held_took;
    } else if (held < held_value && key == "value" && value.is_real()) {
      f.setValue(*value.number());
      held |= held_value;
    } else {
      break;
    }
  }
  f.setHeld(held);
  return k;
}

// The fields a format-4 fact holds, in their order, appended to `out`.
void read_held(schema::Fact::Reader f, const run_words* words, std::vector<field>& out) {
  auto held = f.getHeld();
  if (held == 0)
    return;
  if (held & ~held_all)
    throw undecodable("a fact holds fields this soma does not know (a newer soma wrote it)");
  if (held & held_node)
    out.emplace_back("node", scalar{std::string{word_at(words, f.getNodeAt())}});
  if (held & held_began)
    out.emplace_back("began_us", scalar{f.getBeganUs()});
  if (held & held_took)
    out.emplace_back("took_us", scalar{f.getTookUs()});
  if (held & held_value)
    out.emplace_back("value", scalar{f.getValue()});
}

void put_entries(capnp::List<schema::Entry>::Builder out, std::span<const field> in,
                 run_words* words) {
  std::string keep;
  for (unsigned i = 0; i < in.size(); ++i) {
    auto e = out[i];
    if (auto w = word_of(in[i].key); w != schema::Word::NONE)
      e.setWord(w);
    else if (auto n = words ? words->number_of(in[i].key) : 0)
      e.setKeyAt(n);
    else
      e.setKey(text_for_capnp(in[i].key, keep));
    auto v = e.initValue();
    in[i].value.visit([&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, std::int64_t>) {
        v.setInt(x);
      } else if constexpr (std::is_same_v<T, double>) {
        v.setReal(x);
      } else if (x.find('\0') == std::string::npos) {
        v.setText(as_text(x));
      } else {
        v.setBytes(as_data(x));
      }
    });
  }
}

} // namespace

schema::Word word_of(std::string_view s) noexcept {
  // Told for every name and key of every fact: a switch on the length and
  // one letter, then one compare, not a walk through all the words.
  using W = schema::Word;
  auto is = [&](std::string_view w, W x) { return s == w ? x : W::NONE; };
  switch (s.size()) {
    case 2: return s[0] == 'i' ? is("id", W::ID) : is("of", W::OF);
    case 3: return is("ran", W::RAN);
    case 4:
      switch (s[0]) {
        case 'k': return is("kept", W::KEPT);
        case 'l': return is("left", W::LEFT);
        case 'n': return is("node", W::NODE);
        case 'b': return is("busy", W::BUSY);
        case 'd': return is("done", W::DONE);
        case 'h': return is("host", W::HOST);
        default: return W::NONE;
      }
    case 5:
      switch (s[0]) {
        case 'i': return is("items", W::ITEMS);
        case 'b': return s[1] == 'r' ? is("broke", W::BROKE) : is("bytes", W::BYTES);
        case 'e': return is("error", W::ERROR);
        case 'c': return is("cores", W::CORES);
        case 'u': return is("up_us", W::UP_US);
        default: return W::NONE;
      }
    case 6:
      switch (s[0]) {
        case 'f': return is("failed", W::FAILED);
        case 'm': return is("memory", W::MEMORY);
        case 's': return is("served", W::SERVED);
        default: return W::NONE;
      }
    case 7: return s[0] == 'm' ? is("machine", W::MACHINE) : is("took_us", W::TOOK_US);
    case 8:
      switch (s[0]) {
        case 'r': return is("recalled", W::RECALLED);
        case 'f': return is("finished", W::FINISHED);
        case 'b': return is("began_us", W::BEGAN_US);
        default: return W::NONE;
      }
    default: return W::NONE;
  }
}

std::string_view text_of_word(schema::Word w) noexcept {
  auto i = static_cast<std::size_t>(w);
  return i == 0 || i > engine_words.size() ? std::string_view{} : engine_words[i - 1];
}

void write_entries(capnp::List<schema::Entry>::Builder out, const std::vector<field>& in) {
  put_entries(out, in, nullptr);
}

std::string_view key_of(schema::Entry::Reader in, const run_words* words) {
  auto w = in.getWord();
  if (auto n = in.getKeyAt(); n != 0 && w == schema::Word::NONE)
    return word_at(words, n);
  if (w == schema::Word::NONE) {
    auto k = in.getKey();
    return {k.cStr(), k.size()};
  }
  auto t = text_of_word(w);
  if (t.empty())
    unknown_word(w);
  return t;
}

scalar read_value(schema::Entry::Reader in) {
  auto v = in.getValue();
  switch (v.which()) {
    case schema::Entry::Value::INT: return scalar{v.getInt()};
    case schema::Entry::Value::REAL: return scalar{v.getReal()};
    case schema::Entry::Value::TEXT: return scalar{text_of(v.getText())};
    case schema::Entry::Value::BYTES: return scalar{bytes_of(v.getBytes())};
  }
  throw undecodable("a field's value is of a kind this soma does not know (a newer soma wrote it)");
}

std::vector<field> read_entries(capnp::List<schema::Entry>::Reader in, const run_words* words) {
  std::vector<field> out;
  out.reserve(in.size());
  for (auto e : in)
    out.emplace_back(std::string{key_of(e, words)}, read_value(e));
  return out;
}

std::vector<field> read_fields(capnp::List<schema::Field>::Reader in) {
  std::vector<field> out;
  out.reserve(in.size());
  for (auto f : in) {
    auto v = f.getValue();
    out.emplace_back(text_of(f.getKey()), scalar_of_text({v.cStr(), v.size()}));
  }
  return out;
}

void write_facts(capnp::List<schema::Fact>::Builder out, const std::vector<fact>& facts) {
  std::string keep;
  for (unsigned i = 0; i < facts.size(); ++i) {
    auto f = out[i];
    if (auto w = word_of(facts[i].name); w != schema::Word::NONE)
      f.setWord(w);
    else
      f.setName(text_for_capnp(facts[i].name, keep));
    write_entries(f.initEntries(static_cast<unsigned>(facts[i].fields.size())), facts[i].fields);
  }
}

void write_facts(capnp::List<schema::Fact>::Builder out, const std::vector<fact>& facts,
                 run_words& words) {
  std::string keep;
  for (unsigned i = 0; i < facts.size(); ++i) {
    auto f = out[i];
    auto& x = facts[i];
    if (auto w = word_of(x.name); w != schema::Word::NONE)
      f.setWord(w);
    else if (auto n = words.number_of(x.name))
      f.setNameAt(n);
    else
      f.setName(text_for_capnp(x.name, keep));
    auto k = hold(f, x, words);
    if (k < x.fields.size())
      put_entries(f.initEntries(static_cast<unsigned>(x.fields.size() - k)),
                  std::span{x.fields}.subspan(k), &words);
  }
}

std::vector<fact> read_facts(capnp::List<schema::Fact>::Reader in, const run_words* words) {
  std::vector<fact> out;
  out.reserve(in.size());
  for (auto f : in) {
    fact x;
    if (auto w = f.getWord(); w != schema::Word::NONE) {
      auto t = text_of_word(w);
      if (t.empty())
        unknown_word(w);
      x.name = t;
    } else if (auto n = f.getNameAt(); n != 0) {
      x.name = word_at(words, n);
    } else {
      x.name = text_of(f.getName());
    }
    read_held(f, words, x.fields);
    if (f.hasEntries()) {
      auto more = read_entries(f.getEntries(), words);
      if (x.fields.empty())
        x.fields = std::move(more);
      else
        x.fields.insert(x.fields.end(), std::make_move_iterator(more.begin()),
                        std::make_move_iterator(more.end()));
    } else if (x.fields.empty()) {
      x.fields = read_fields(f.getFields());
    }
    out.push_back(std::move(x));
  }
  return out;
}

} // namespace soma::detail
