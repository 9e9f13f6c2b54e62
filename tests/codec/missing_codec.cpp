// Encoding a type with no codec is a compile error that says how to add one
// (compiled by CTest, syntax only, with and without SOMA_MISSING_CODEC).

#include <vector>

#include "soma/codec.hpp"

struct Opaque {
  int x = 0;
};

int main() {
#ifdef SOMA_MISSING_CODEC
  return soma::encode(std::vector<Opaque>{}).empty() ? 1 : 0;
#else
  return soma::encode(std::vector<int>{}).empty() ? 1 : 0;
#endif
}
