#include "soma/print.hpp"

#include <string>

namespace soma {

void printer::operator()(const fact& x) const {
  thread_local std::string line;
  line.clear();
  append_json(line, x);
  line.push_back('\n');
  auto* out = out_ ? out_ : stdout;
  // One locked write per line keeps lines whole when forwards overlap.
  flockfile(out);
  fwrite_unlocked(line.data(), 1, line.size(), out);
  fflush_unlocked(out);
  funlockfile(out);
}

} // namespace soma
