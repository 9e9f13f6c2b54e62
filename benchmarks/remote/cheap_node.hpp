#pragma once

// The node the remote benchmark sends away: worth almost nothing, so what is
// timed is the trip.

#include <cstdint>

#include "soma/node.hpp"

struct Cheap : soma::node<Cheap, std::int64_t, std::int64_t> {
  Out forward(const In& x, soma::context&) override { return x + 1; }
};
