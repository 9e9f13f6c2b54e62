#include "soma/worker/slice_runner.hpp"

#include <chrono>
#include <exception>
#include <vector>

#include "soma/forward_state.hpp"
#include "soma/detail/undecodable.hpp"

namespace soma::serve {

namespace {

using detail::clock;
using detail::micros;
using detail::what;
using wire::refusal;

// A slice's facts, kept for the answer instead of told to watchers.
class collecting final : public detail::forward_state {
public:
  explicit collecting(std::vector<fact>* into)
    : forward_state(soma::watching{[into](const fact& x) { into->push_back(x); }}) {}

  void fail(std::string, std::string, caf::local_actor*) override {}
};

// The answer `a`, its held_us stamped now: how long the worker held the
// slice taken at `taken`.
std::string answer(wire::slice_answer& a, const slice_taken& taken) {
  a.held_us = micros(clock::now() - taken.at);
  return wire::encode_slice_answer(a);
}

std::pair<std::string, std::string> refused(wire::slice_answer& a, const slice_taken& taken,
                                            refusal why, std::string node, std::string error) {
  a.refused = why;
  a.node = std::move(node);
  a.error = std::move(error);
  return {answer(a, taken), std::string{}};
}

// Decodes and binds `header` into `plan`, or says why not in `a`.
bool prepare(session_catalog& catalog, slice_plan& plan, std::string_view header,
             wire::slice_answer& a) {
  if (!plan.header.empty() && plan.header == header)
    return true;
  plan = {};
  std::vector<wire::slice_node> nodes;
  try {
    nodes = wire::decode_slice(header);
  } catch (const detail::undecodable& e) {
    a.refused = refusal::bad_slice;
    a.error = std::string{"the slice did not decode: "} + e.what();
    return false;
  }
  for (auto& n : nodes) {
    auto why = catalog.bind(n.type, n.definition, n.library);
    if (why.what == session_catalog::refusal::none)
      continue;
    a.node = n.name;
    a.error = why.error;
    if (why.what == session_catalog::refusal::needs_code) {
      a.refused = refusal::needs_code;
      for (auto& m : nodes)
        if (m.type == n.type || catalog.bind(m.type, m.definition, m.library).what
                                  == session_catalog::refusal::needs_code)
          a.missing.push_back(m.definition);
    } else {
      a.refused = why.what == session_catalog::refusal::conflict ? refusal::conflict
                                                                 : refusal::unknown_node;
    }
    return false;
  }
  std::vector<detail::remote_node*> instances;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto& n = nodes[i];
    try {
      instances.push_back(&catalog.instance(n.type, n.name, n.state));
    } catch (const std::exception& e) {
      a.refused = refusal::bad_slice;
      a.node = n.name;
      a.error = "node " + n.name + " could not be made here: " + e.what();
      return false;
    }
    if (i > 0 && instances[i - 1]->out_type() != instances[i]->in_type()) {
      a.refused = refusal::bad_slice;
      a.node = n.name;
      a.error = "node " + n.name + " does not take what " + nodes[i - 1].name + " gives";
      return false;
    }
  }
  plan.header.assign(header);
  plan.nodes = std::move(nodes);
  plan.instances = std::move(instances);
  return true;
}

} // namespace

std::pair<std::string, std::string> run_slice(session_catalog& catalog, slice_plan& plan,
                                              std::string_view header, std::string_view input,
                                              std::optional<fact> first, slice_end* how,
                                              const slice_taken& taken) {
  slice_end ignored;
  auto& end = how ? *how : ignored;
  end = slice_end::refused;
  wire::slice_answer a;
  a.taken_us = taken.unix_us;
  if (first)
    a.facts.push_back(std::move(*first));
  if (!prepare(catalog, plan, header, a)) {
    if (a.refused == refusal::needs_code)
      end = slice_end::needs_code;
    return {answer(a, taken), std::string{}};
  }
  auto& nodes = plan.nodes;
  detail::boxed value;
  try {
    value = plan.instances.front()->decode_in(input);
  } catch (const detail::value_error& e) {
    return refused(a, taken, refusal::bad_slice, nodes.front().name,
                   "node " + nodes.front().name + ": " + e.what());
  }
  collecting forward{&a.facts};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto& name = nodes[i].name;
    auto began = clock::now();
    try {
      context ctx{forward, name, nullptr};
      value = plan.instances[i]->run(value, ctx);
    } catch (...) {
      auto text = what(std::current_exception());
      forward.emit(detail::failed_fact(name, text, micros(began - taken.at),
                                       micros(clock::now() - began)),
                   nullptr);
      end = slice_end::failed;
      return refused(a, taken, refusal::node_failed, name, std::move(text));
    }
    forward.emit(detail::ran_fact(name, micros(began - taken.at), micros(clock::now() - began)),
                 nullptr);
  }
  std::string output;
  try {
    output = plan.instances.back()->encode_out(value);
  } catch (const detail::value_error& e) {
    return refused(a, taken, refusal::bad_slice, nodes.back().name,
                   "node " + nodes.back().name + ": " + e.what());
  }
  end = slice_end::ran;
  return {answer(a, taken), std::move(output)};
}

} // namespace soma::serve
