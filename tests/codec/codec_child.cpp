// Prints "label hex" per line for a fixed set of values, for the test that
// checks that another process encodes them to the same bytes.
//
//   codec_child [forward|reversed]
//
// `reversed` fills unordered maps in another order.

#include <cstdio>
#include <cstring>

#include "samples.hpp"

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "forward") != 0 && std::strcmp(argv[1], "reversed") != 0)) {
    std::fprintf(stderr, "usage: codec_child forward|reversed\n");
    return 2;
  }
  for (auto& [label, hex] : soma_test::sample_encodings(std::strcmp(argv[1], "reversed") == 0))
    std::printf("%s %s\n", label.c_str(), hex.c_str());
  std::printf("end\n");
  return 0;
}
