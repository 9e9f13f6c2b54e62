// Links soma::runtime alone: the printer writes a fact as a JSON line.
#include <cstdio>

#include <soma/print.hpp>

int main() {
  soma::printer print{stdout};
  print(soma::fact{"said", {{"runtime", "alone"}}});
  return 0;
}
