#pragma once

// The two nodes of the seed's "A fleet": one worth almost nothing, and one
// worth sending (a fifth of a second of work).

#include <chrono>
#include <thread>

#include "soma/node.hpp"

struct Cheap : soma::node<Cheap, int, int> {
  Out forward(const In& x, soma::context&) override { return x + 1; }
};

struct Costly : soma::node<Costly, int, int> {
  Out forward(const In& x, soma::context&) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return x + 1;
  }
};
