// Adding a codec for your own type: a few lines make it encodable, so a
// cached node can keep it and a worker can send it, alone or inside
// vectors, maps and optionals.

#include <cstdio>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "soma/codec.hpp"

//! [token]
struct Token {
  std::string text;
  std::int32_t position = 0;
  std::optional<double> weight;
};

// The name is what the bytes say they hold: keep it the same on every host,
// and change it when the fields change.
template <>
struct soma::codec<Token> : soma::fields_codec<Token> {
  static std::string name() { return "Token"; }
  static auto fields(Token& t) { return std::tie(t.text, t.position, t.weight); }
};

static_assert(soma::encodable<std::map<std::string, std::vector<Token>>>);

int main() {
  std::vector<Token> tokens{{"the", 0, std::nullopt}, {"cat", 1, 0.5}};

  std::string bytes = soma::encode(tokens);
  std::printf("%s: %zu bytes\n", soma::codec<std::vector<Token>>::name().c_str(), bytes.size());

  for (const Token& t : soma::decode<std::vector<Token>>(bytes)) {
    if (t.weight)
      std::printf("  %s at %d, weight %g\n", t.text.c_str(), t.position, *t.weight);
    else
      std::printf("  %s at %d, no weight\n", t.text.c_str(), t.position);
  }

  try {
    auto wrong = soma::decode<std::vector<std::string>>(bytes);
  } catch (const soma::codec_error& e) {
    std::printf("error: %s\n", e.what());
  }
}
//! [token]
