#pragma once

// The three nodes of the seed's "Watching a run": words to lengths, lengths
// halved, their mean.

#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "soma/node.hpp"

/// Each word's length.
//! [tokenize]
struct Tokenize : soma::node<Tokenize, std::string, std::vector<double>> {
  Out forward(const In& text, soma::context&) override {
    Out counts;
    std::istringstream words{text};
    for (std::string w; words >> w;)
      counts.push_back(static_cast<double>(w.size()));
    return counts;
  }
};
//! [tokenize]

//! [embed_score]
/// Each length halved.
struct Embed : soma::node<Embed, std::vector<double>, std::vector<double>> {
  Out forward(const In& counts, soma::context&) override {
    Out out;
    out.reserve(counts.size());
    for (double n : counts)
      out.push_back(n * 0.5);
    return out;
  }
};

/// Their mean; a text with no words has none, and the forward fails here.
struct Score : soma::node<Score, std::vector<double>, double> {
  Out forward(const In& values, soma::context&) override {
    if (values.empty())
      throw std::invalid_argument("nothing to score: the text had no words");
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  }
};
//! [embed_score]
