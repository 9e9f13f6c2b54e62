#include "soma/store/detail/capnp_bytes.hpp"
#include "soma/serve/slice_runner.hpp"

#include <chrono>
#include <exception>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include "soma/detail/forward_state.hpp"
#include "soma/node_library.hpp"
#include "soma/schema/remote.capnp.h"
#include "soma/store/detail/fact_lists.hpp"

namespace soma::serve {

namespace {

using detail::clock;
using detail::micros;
using detail::what;

// A slice's facts, kept for the answer instead of told to watchers.
class collecting final : public detail::forward_state {
public:
  explicit collecting(std::vector<fact>* into)
    : forward_state(soma::watching{[into](const fact& x) { into->push_back(x); }}) {}

  void fail(std::string, std::string, caf::local_actor*) override {}
};

struct answer {
  std::vector<fact> facts;
  std::string output;
  schema::Refusal refusal = schema::Refusal::NONE;
  std::string node;
  std::string error;
  std::vector<std::string> missing;

  std::string encode() const {
    capnp::MallocMessageBuilder message;
    auto root = message.initRoot<schema::SliceResult>();
    detail::write_facts(root.initFacts(static_cast<unsigned>(facts.size())), facts);
    root.setOutput(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(output.data()), output.size()));
    root.setRefusal(refusal);
    root.setNode(node);
    root.setError(error);
    auto ms = root.initMissing(static_cast<unsigned>(missing.size()));
    for (unsigned i = 0; i < missing.size(); ++i)
      ms.set(i, missing[i]);
    return detail::to_bytes(message);
  }
};

struct slice_node {
  std::string type, name, definition, library;
};

} // namespace

std::string run_slice(session_catalog& catalog, std::string_view bytes, std::optional<fact> first,
                      bool* ran) {
  answer a;
  if (first)
    a.facts.push_back(std::move(*first));
  std::vector<slice_node> nodes;
  std::string value;
  try {
    if (bytes.size() % sizeof(capnp::word) != 0)
      throw std::runtime_error("its size is not a whole number of words");
    // Copied so the words are aligned whatever the transport gave us.
    auto words = detail::aligned_words(bytes);
    capnp::FlatArrayMessageReader reader{words};
    auto slice = reader.getRoot<schema::Slice>();
    for (auto n : slice.getNodes())
      nodes.push_back({n.getType(), n.getName(), n.getDefinition(), n.getLibrary()});
    auto in = slice.getInput();
    value.assign(reinterpret_cast<const char*>(in.begin()), in.size());
    if (nodes.empty())
      throw std::runtime_error("it has no nodes");
  } catch (const std::exception& e) {
    a.refusal = schema::Refusal::BAD_SLICE;
    a.error = std::string{"the slice did not decode: "} + e.what();
    return a.encode();
  } catch (const kj::Exception& e) {
    a.refusal = schema::Refusal::BAD_SLICE;
    a.error = "the slice did not decode: " + std::string{e.getDescription().cStr()};
    return a.encode();
  }
  for (auto& n : nodes) {
    auto why = catalog.bind(n.type, n.definition, n.library);
    if (why.what == session_catalog::refusal::none)
      continue;
    a.node = n.name;
    a.error = why.error;
    if (why.what == session_catalog::refusal::needs_code) {
      a.refusal = schema::Refusal::NEEDS_CODE;
      if (ran)
        *ran = false;
      for (auto& m : nodes)
        if (m.type == n.type || catalog.bind(m.type, m.definition, m.library).what
                                  == session_catalog::refusal::needs_code)
          a.missing.push_back(m.definition);
    } else {
      a.refusal = why.what == session_catalog::refusal::conflict ? schema::Refusal::CONFLICT
                                                                  : schema::Refusal::UNKNOWN_NODE;
    }
    return a.encode();
  }
  collecting forward{&a.facts};
  for (auto& n : nodes) {
    auto began = clock::now();
    try {
      context ctx{forward, n.name, nullptr};
      value = catalog.instance(n.type, n.name).run(value, ctx);
    } catch (const detail::value_error& e) {
      a.refusal = schema::Refusal::BAD_SLICE;
      a.node = n.name;
      a.error = std::string{"node "} + n.name + ": " + e.what();
      return a.encode();
    } catch (...) {
      auto text = what(std::current_exception());
      forward.emit(detail::failed_fact(n.name, text, forward.since_began_us(began),
                                       micros(clock::now() - began)),
                   nullptr);
      a.refusal = schema::Refusal::NODE_FAILED;
      a.node = n.name;
      a.error = std::move(text);
      return a.encode();
    }
    forward.emit(detail::ran_fact(n.name, forward.since_began_us(began), micros(clock::now() - began)),
                 nullptr);
  }
  a.output = std::move(value);
  return a.encode();
}

} // namespace soma::serve
