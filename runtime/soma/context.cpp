#include "soma/context.hpp"

#include <stdexcept>

#include "soma/forward_state.hpp"
#include "soma/vocabulary.hpp"

namespace soma {

void context::tell(fact x) {
  if (vocabulary::is_engine_word(x.name))
    throw std::invalid_argument("node '" + node_ + "' told a fact named '" + x.name
                                + "', which is one of the engine's words; "
                                  "give your fact a name of its own");
  if (x.name.empty())
    throw std::invalid_argument("node '" + node_ + "' told a fact with no name; "
                                "every fact needs one");
  if (x.has("fact"))
    throw std::invalid_argument("node '" + node_ + "' told '" + x.name
                                + "' with a field named 'fact', which is where a "
                                  "fact's name is written; rename the field");
  forward_.emit(std::move(x), host_);
}

void context::items(std::uint64_t done, std::uint64_t of) {
  fact x{"items", {}};
  x.fields.reserve(3);
  x.fields.emplace_back("node", node_);
  x.fields.emplace_back("done", done);
  x.fields.emplace_back("of", of);
  forward_.emit(std::move(x), host_);
}

std::int64_t context::since_began_us() const noexcept {
  return forward_.since_began_us(detail::clock::now());
}

} // namespace soma
