#pragma once
// The node the one-library programs build a graph of.
#include <string>

#include <soma/node.hpp>

struct Length : soma::node<Length, std::string, int> {
  Out forward(const In& s, soma::context&) override { return static_cast<int>(s.size()); }
};
