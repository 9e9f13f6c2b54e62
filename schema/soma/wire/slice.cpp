#include "soma/wire/slice.hpp"

#include "soma/detail/capnp.hpp"
#include "soma/detail/fact_lists.hpp"
#include "soma/schema/remote.capnp.h"

namespace soma::wire {

namespace {

using detail::as_data;
using detail::bytes_of;
using detail::text_of;

} // namespace

std::string encode_slice(const std::vector<slice_node>& nodes) {
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::Slice>();
  auto ns = root.initNodes(static_cast<unsigned>(nodes.size()));
  for (unsigned i = 0; i < nodes.size(); ++i) {
    ns[i].setType(nodes[i].type);
    ns[i].setName(nodes[i].name);
    ns[i].setDefinition(nodes[i].definition);
    ns[i].setLibrary(nodes[i].library);
    ns[i].setState(as_data(nodes[i].state));
  }
  return detail::to_bytes(message);
}

std::vector<slice_node> decode_slice(std::string_view bytes) {
  auto nodes = detail::read_capnp<schema::Slice>(bytes, [](schema::Slice::Reader slice) {
    std::vector<slice_node> out;
    for (auto n : slice.getNodes()) {
      out.push_back({text_of(n.getType()), text_of(n.getName()), text_of(n.getDefinition()),
                     text_of(n.getLibrary()), bytes_of(n.getState())});
    }
    return out;
  });
  if (nodes.empty())
    throw detail::undecodable("it has no nodes");
  return nodes;
}

std::string encode_slice_answer(const slice_answer& a) {
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::SliceResult>();
  detail::write_facts(root.initFacts(static_cast<unsigned>(a.facts.size())), a.facts);
  root.setRefusal(static_cast<schema::Refusal>(a.refused));
  root.setNode(a.node);
  root.setError(a.error);
  auto ms = root.initMissing(static_cast<unsigned>(a.missing.size()));
  for (unsigned i = 0; i < a.missing.size(); ++i)
    ms.set(i, a.missing[i]);
  root.setTakenUs(a.taken_us);
  root.setHeldUs(a.held_us);
  return detail::to_bytes(message);
}

slice_answer decode_slice_answer(std::string_view bytes, answer_facts facts) {
  return detail::read_capnp<schema::SliceResult>(bytes, [facts](schema::SliceResult::Reader r) {
    slice_answer a;
    if (facts == answer_facts::read)
      a.facts = detail::read_facts(r.getFacts());
    auto why = static_cast<unsigned>(r.getRefusal());
    if (why > static_cast<unsigned>(refusal::bad_slice))
      throw detail::undecodable("its refusal " + std::to_string(why) + " is none this soma knows");
    a.refused = static_cast<refusal>(why);
    a.node = text_of(r.getNode());
    a.error = text_of(r.getError());
    for (auto m : r.getMissing())
      a.missing.push_back(text_of(m));
    a.taken_us = r.getTakenUs();
    a.held_us = r.getHeldUs();
    return a;
  });
}

} // namespace soma::wire
