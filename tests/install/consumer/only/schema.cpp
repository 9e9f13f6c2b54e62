// Links soma::schema alone: a fact, as JSON.
#include <cstdio>

#include <soma/fact.hpp>

int main() {
  soma::fact f{"loss", {{"value", 2.5}}};
  std::printf("%s\n", soma::to_json(f).c_str());
  return soma::to_json(f) == R"({"fact":"loss","value":"2.5"})" ? 0 : 1;
}
