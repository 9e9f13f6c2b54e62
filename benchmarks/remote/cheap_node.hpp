#pragma once

// The node the remote benchmark sends away: worth almost nothing, so what is
// timed is the trip.

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "soma/node.hpp"

struct Cheap : soma::node<Cheap, std::int64_t, std::int64_t> {
  Out forward(const In& x, soma::context&) override { return x + 1; }
};

/// Sleeps its input in milliseconds: a slice still running when its worker
/// is told to stop.
struct Slow : soma::node<Slow, std::int64_t, std::int64_t> {
  Out forward(const In& ms, soma::context&) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return ms;
  }
};

/// Gives back what it was given: a large value's trip, both ways.
struct Echo : soma::node<Echo, std::string, std::string> {
  Out forward(const In& x, soma::context&) override { return x; }
};

/// Gives back the numbers it was given: a large value of another shape.
struct EchoNumbers : soma::node<EchoNumbers, std::vector<double>, std::vector<double>> {
  Out forward(const In& x, soma::context&) override { return x; }
};
