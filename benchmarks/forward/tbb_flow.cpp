// (c) The peer: oneTBB flow_graph, three serial function_nodes in a line.

#include <oneapi/tbb/flow_graph.h>

#include "bench.hpp"

namespace bench {

namespace {

namespace flow = oneapi::tbb::flow;

// The three steps as a flow graph; the last node keeps what it saw.
struct pipeline {
  flow::graph g;
  std::int64_t last = 0;
  std::int64_t sum = 0;
  flow::function_node<std::int64_t, std::int64_t> first{
    g, flow::serial, [](std::int64_t x) { return add_one(x); }};
  flow::function_node<std::int64_t, std::int64_t> second{
    g, flow::serial, [](std::int64_t x) { return times_three(x); }};
  flow::function_node<std::int64_t, flow::continue_msg> third{
    g, flow::serial, [this](std::int64_t x) {
      last = minus_two(x);
      sum += last;
      return flow::continue_msg{};
    }};

  pipeline() {
    flow::make_edge(first, second);
    flow::make_edge(second, third);
  }
};

} // namespace

std::vector<row> tbb_flow(const options& opt) {
  std::vector<row> rows;
  pipeline p;

  // What a blocking caller does: one input, wait for the graph to go idle.
  if (row blocking{"c  tbb flow_graph, put + wait each"}; opt.wants(blocking.name)) {
    measure(blocking, opt.reps, opt.forwards, [&](std::size_t n) {
      p.sum = 0;
      std::int64_t wrong = 0;
      auto began = clock::now();
      for (std::size_t i = 0; i < n; ++i) {
        auto x = static_cast<std::int64_t>(i);
        p.first.try_put(x);
        p.g.wait_for_all();
        wrong += p.last != expected(x);
      }
      auto took = clock::now() - began;
      if (wrong != 0 || p.sum != expected_sum(static_cast<std::int64_t>(n)))
        blocking.problems.push_back(std::to_string(wrong) + " wrong outputs");
      return took;
    });
    rows.push_back(std::move(blocking));
  }

  // Throughput: every input put, then one wait.
  if (row many{"c  tbb flow_graph, all put, one wait", true}; opt.wants(many.name)) {
    measure(many, opt.reps, opt.throughput_forwards, [&](std::size_t n) {
      p.sum = 0;
      auto began = clock::now();
      for (std::size_t i = 0; i < n; ++i)
        p.first.try_put(static_cast<std::int64_t>(i));
      p.g.wait_for_all();
      auto took = clock::now() - began;
      if (p.sum != expected_sum(static_cast<std::int64_t>(n)))
        many.problems.push_back("outputs summed to " + std::to_string(p.sum));
      return took;
    });
    rows.push_back(std::move(many));
  }
  return rows;
}

} // namespace bench
