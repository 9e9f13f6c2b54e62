#include "soma/store/detail/capnp_bytes.hpp"
#include "soma/store/record.hpp"

#include <cstring>
#include <ostream>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>
#include <kj/io.h>
#include <kj/exception.h>

#include "soma/schema/soma.capnp.h"
#include "soma/store/detail/fact_lists.hpp"
#include "soma/store/store.hpp"

namespace soma {

std::string_view to_string(outcome x) noexcept {
  switch (x) {
    case outcome::ok: return "ok";
    case outcome::broke: return "broke";
    default: return "open";
  }
}

std::ostream& operator<<(std::ostream& out, outcome x) {
  return out << to_string(x);
}

namespace detail {

namespace {

// Serialises straight into the string that goes to LMDB: one copy.

// A first segment sized to the message, instead of Cap'n Proto's default of
// 8 KiB zeroed per message: most records and blobs are a few hundred bytes.
unsigned first_segment(std::size_t text_bytes, std::size_t items) {
  return static_cast<unsigned>(16 + items * 4 + text_bytes / sizeof(capnp::word));
}

// Cap'n Proto Text ends at the first NUL, so a NUL inside a fact's text
// would cut off everything after it: it is written as U+FFFD instead.
std::string text_of(const std::string& s) {
  if (s.find('\0') == std::string::npos)
    return s;
  std::string out;
  for (char c : s)
    out += c == '\0' ? std::string{"\xEF\xBF\xBD"} : std::string(1, c);
  return out;
}

void set_fields(capnp::List<schema::Field>::Builder out, const std::vector<field>& in) {
  for (unsigned i = 0; i < in.size(); ++i) {
    out[i].setKey(text_of(in[i].key));
    out[i].setValue(text_of(in[i].value));
  }
}

std::vector<field> get_fields(capnp::List<schema::Field>::Reader in) {
  std::vector<field> out;
  out.reserve(in.size());
  for (auto f : in)
    out.emplace_back(std::string{f.getKey().cStr(), f.getKey().size()},
                     std::string{f.getValue().cStr(), f.getValue().size()});
  return out;
}

// Reads a message from bytes LMDB hands out, which need not be 8-byte
// aligned: copy into words first. Every Cap'n Proto error becomes a
// store_error naming where the bytes came from.
template <class Root, class F>
auto read_message(std::string_view bytes, const origin& where, F&& f) {
  if (bytes.empty() || bytes.size() % sizeof(capnp::word) != 0)
    throw store_error(where.str() + " is damaged: " + std::to_string(bytes.size())
                      + " bytes is not a whole number of 8-byte words; its bytes were changed "
                        "after they were written, and the rest of the store still reads");
  auto words = detail::aligned_words(bytes);
  try {
    capnp::FlatArrayMessageReader reader{words};
    return f(reader.getRoot<Root>());
  } catch (const kj::Exception& e) {
    throw store_error(where.str() + " is damaged and cannot be decoded ("
                      + e.getDescription().cStr()
                      + "); its bytes were changed after they were written, and the rest of "
                        "the store still reads");
  }
}

} // namespace

std::string origin::str() const {
  if (run.empty())
    return std::string{what};
  return std::string{what} + " of forward " + std::to_string(n) + " of run '" + std::string{run}
         + "'";
}

std::string encode_record(const record& x) {
  std::size_t text = 0;
  for (auto& f : x.summary)
    text += f.key.size() + f.value.size() + 2;
  capnp::MallocMessageBuilder msg{first_segment(text, x.summary.size() + 4)};
  auto r = msg.initRoot<schema::Record>();
  r.setForward(x.forward);
  r.setState(x.state == outcome::ok      ? schema::State::OK
             : x.state == outcome::broke ? schema::State::BROKE
                                         : schema::State::OPEN);
  r.setNodes(x.nodes);
  r.setTookUs(x.took_us);
  r.setWhen(x.when);
  set_fields(r.initSummary(static_cast<unsigned>(x.summary.size())), x.summary);
  return to_bytes(msg);
}

record decode_record(std::string_view bytes, const origin& where) {
  return read_message<schema::Record>(bytes, where, [](schema::Record::Reader r) {
    record x;
    x.forward = r.getForward();
    switch (r.getState()) {
      case schema::State::OK: x.state = outcome::ok; break;
      case schema::State::BROKE: x.state = outcome::broke; break;
      default: x.state = outcome::open;
    }
    x.nodes = r.getNodes();
    x.took_us = r.getTookUs();
    x.when = r.getWhen();
    x.summary = get_fields(r.getSummary());
    return x;
  });
}

std::string encode_facts(const std::vector<fact>& facts) {
  std::size_t text = 0, items = facts.size();
  for (auto& f : facts) {
    text += f.name.size() + 1;
    for (auto& fl : f.fields)
      text += fl.key.size() + fl.value.size() + 2;
    items += f.fields.size() * 2;
  }
  capnp::MallocMessageBuilder msg{first_segment(text, items)};
  write_facts(msg.initRoot<schema::FactList>().initFacts(static_cast<unsigned>(facts.size())), facts);
  return to_bytes(msg);
}

void write_facts(capnp::List<schema::Fact>::Builder out, const std::vector<fact>& facts) {
  for (unsigned i = 0; i < facts.size(); ++i) {
    out[i].setName(text_of(facts[i].name));
    set_fields(out[i].initFields(static_cast<unsigned>(facts[i].fields.size())), facts[i].fields);
  }
}

std::vector<fact> read_facts(capnp::List<schema::Fact>::Reader in) {
  std::vector<fact> out;
  out.reserve(in.size());
  for (auto f : in)
    out.push_back(fact{std::string{f.getName().cStr(), f.getName().size()}, get_fields(f.getFields())});
  return out;
}

std::vector<fact> decode_facts(std::string_view bytes, const origin& where) {
  return read_message<schema::FactList>(bytes, where,
                                        [](schema::FactList::Reader r) { return read_facts(r.getFacts()); });
}

std::string encode_run_meta(const std::vector<std::string>& summarising) {
  capnp::MallocMessageBuilder msg;
  auto list = msg.initRoot<schema::RunMeta>().initSummarising(
    static_cast<unsigned>(summarising.size()));
  for (unsigned i = 0; i < summarising.size(); ++i)
    list.set(i, summarising[i]);
  return to_bytes(msg);
}

std::vector<std::string> decode_run_meta(std::string_view bytes, const origin& where) {
  return read_message<schema::RunMeta>(bytes, where, [](schema::RunMeta::Reader r) {
    std::vector<std::string> out;
    for (auto s : r.getSummarising())
      out.emplace_back(s.cStr(), s.size());
    return out;
  });
}

} // namespace detail

} // namespace soma
