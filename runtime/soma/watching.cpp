#include "soma/watching.hpp"

namespace soma {

watching::watching(std::initializer_list<watcher> ws) {
  for (auto& w : ws)
    add(w);
}

watching::watching(std::vector<watcher> ws) {
  for (auto& w : ws)
    add(std::move(w));
}

void watching::add(watcher w) {
  if (w.sink())
    sinks_.push_back(w.sink());
  else if (w.is_actor() && w.is_whole_forwards())
    whole_.push_back(w.actor());
  else if (w.is_actor() && w.is_forward_aware())
    forward_aware_.push_back(w.actor());
  else if (w.is_actor())
    actors_.push_back(w.actor());
  else if (w.callable())
    callables_.push_back(w.callable());
}

} // namespace soma
