#pragma once
// A node a worker runs: shouts its input, as many times as it is told.
#include <string>
#include <tuple>

#include <soma/codec.hpp>
#include <soma/node.hpp>

struct Shout : soma::node<Shout, std::string, std::string> {
  Shout() = default;
  explicit Shout(int n) : times(n) {}
  int times = 1;
  Out forward(const In& s, soma::context&) override {
    std::string loud;
    for (char c : s)
      loud.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    std::string out;
    for (int i = 0; i < times; ++i)
      out += loud;
    return out;
  }
};

template <>
struct soma::codec<Shout> : soma::fields_codec<Shout> {
  static std::string name() { return "Shout"; }
  static auto fields(Shout& s) { return std::tie(s.times); }
};
