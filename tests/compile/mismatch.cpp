// Joining two nodes whose types disagree must not compile, and the error must
// name both nodes. Built twice by CTest: with SOMA_MISMATCH (must fail, naming
// Score and Embed) and without (must compile, so the failure is the mismatch
// and nothing else).

#include "seed_nodes.hpp"
#include "soma/chain.hpp"

int main() {
#ifdef SOMA_MISMATCH
  // Score gives a double; Embed takes a std::vector<double>.
  auto c = Embed{} >> Score{} >> Embed{};
#else
  auto c = Tokenize{} >> Embed{} >> Score{};
#endif
  return static_cast<int>(decltype(c)::size);
}
