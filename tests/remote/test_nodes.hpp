#pragma once

// Nodes the remote tests send to workers, beside the seed's three
// (seed_nodes.hpp). All are served by libremote_test_nodes.so.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <thread>
#include <vector>

#include "soma/codec.hpp"
#include "soma/node.hpp"

/// Adds one; built twice (SOMA_TEST_VARIANT) to make two different libraries.
struct Inc : soma::node<Inc, int, int> {
  Out forward(const In& x, soma::context&) override {
#if SOMA_TEST_VARIANT == 2
    return x + 2;
#else
    return x + 1;
#endif
  }
};

/// Doubles, and says so with a fact of its own.
struct Twice : soma::node<Twice, int, int> {
  Out forward(const In& x, soma::context& ctx) override {
    ctx.tell(soma::fact{"doubled", {{"from", x}, {"as", "a number"}}});
    return 2 * x;
  }
};

/// Throws on a negative input.
struct Picky : soma::node<Picky, int, int> {
  Out forward(const In& x, soma::context&) override {
    if (x < 0)
      throw std::domain_error("no negatives: " + std::to_string(x));
    return x;
  }
};

/// Takes its input in milliseconds to answer.
struct Sleepy : soma::node<Sleepy, int, int> {
  Out forward(const In& ms, soma::context&) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return ms;
  }
};

/// Tells a fact whose text holds a NUL byte, which Cap'n Proto text cannot.
struct Says : soma::node<Says, int, int> {
  Out forward(const In& x, soma::context& ctx) override {
    ctx.tell(soma::fact{"said", {{"text", std::string("a\0b", 3)}}});
    return x;
  }
};

/// Sleeps its `ms` whatever its input: a node whose work is known
/// (`Nap{50}.at("w1")` takes 50 ms over there).
struct Nap : soma::node<Nap, int, int> {
  Nap() = default;
  explicit Nap(int m) : ms(m) {}
  int ms = 0;
  Out forward(const In& x, soma::context&) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return x + 1;
  }
};

template <>
struct soma::codec<Nap> : soma::fields_codec<Nap> {
  static std::string name() { return "Nap"; }
  static auto fields(Nap& s) { return std::tie(s.ms); }
};

/// Holds its slice until the test lets it go: a latch across processes.
/// Forward n writes `<dir>/taken-n` once it runs over there, then waits for
/// `<dir>/go-n` (at most 60 s, then it gives up and answers anyway). A
/// fault injected after `taken-n` appeared lands while forward n is in
/// flight, however loaded the machine (tests/remote/latch.hpp).
struct Held : soma::node<Held, int, int> {
  Held() = default;
  explicit Held(std::string d) : dir(std::move(d)) {}
  std::string dir;
  Out forward(const In& n, soma::context&) override {
    namespace fs = std::filesystem;
    auto name = std::to_string(n);
    std::ofstream{fs::path{dir} / ("taken-" + name)} << "taken\n";
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!fs::exists(fs::path{dir} / ("go-" + name)) && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return n;
  }
};

template <>
struct soma::codec<Held> : soma::fields_codec<Held> {
  static std::string name() { return "Held"; }
  static auto fields(Held& s) { return std::tie(s.dir); }
};

//! [scale]
/// Multiplies by its factor: a node with a setting, given through its codec
/// so that it travels (`Scale{3}.at("w1")` multiplies by 3 over there).
struct Scale : soma::node<Scale, int, int> {
  Scale() = default;
  explicit Scale(int f) : factor(f) {}
  int factor = 1;
  Out forward(const In& x, soma::context&) override { return factor * x; }
};

template <>
struct soma::codec<Scale> : soma::fields_codec<Scale> {
  static std::string name() { return "Scale"; }
  static auto fields(Scale& s) { return std::tie(s.factor); }
};
//! [scale]

/// Adds its offset: a node with a setting and no codec, which cannot travel.
struct Offset : soma::node<Offset, int, int> {
  int by = 0;
  Out forward(const In& x, soma::context&) override { return x + by; }
};
