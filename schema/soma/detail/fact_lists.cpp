#include "soma/detail/fact_lists.hpp"

#include "soma/detail/capnp.hpp"

#include <string>

namespace soma::detail {

namespace {

// Cap'n Proto Text ends at the first NUL, so a NUL inside a fact's text
// would cut off everything after it: it is written as U+FFFD instead.
std::string without_nul(const std::string& s) {
  if (s.find('\0') == std::string::npos)
    return s;
  std::string out;
  for (char c : s)
    out += c == '\0' ? std::string{"\xEF\xBF\xBD"} : std::string(1, c);
  return out;
}

} // namespace

void write_fields(capnp::List<schema::Field>::Builder out, const std::vector<field>& in) {
  for (unsigned i = 0; i < in.size(); ++i) {
    out[i].setKey(without_nul(in[i].key));
    out[i].setValue(without_nul(in[i].value));
  }
}

std::vector<field> read_fields(capnp::List<schema::Field>::Reader in) {
  std::vector<field> out;
  out.reserve(in.size());
  for (auto f : in)
    out.emplace_back(text_of(f.getKey()), text_of(f.getValue()));
  return out;
}

void write_facts(capnp::List<schema::Fact>::Builder out, const std::vector<fact>& facts) {
  for (unsigned i = 0; i < facts.size(); ++i) {
    out[i].setName(without_nul(facts[i].name));
    write_fields(out[i].initFields(static_cast<unsigned>(facts[i].fields.size())), facts[i].fields);
  }
}

std::vector<fact> read_facts(capnp::List<schema::Fact>::Reader in) {
  std::vector<fact> out;
  out.reserve(in.size());
  for (auto f : in)
    out.push_back(fact{text_of(f.getName()), read_fields(f.getFields())});
  return out;
}

} // namespace soma::detail
