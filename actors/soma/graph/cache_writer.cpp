#include "soma/graph/cache_writer.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/local_actor.hpp>
#include <caf/spawn_options.hpp>

#include "soma/detail/deterministic.hpp"
#include "soma/store/cache.hpp"

namespace soma::detail {

namespace {

struct cache_writer_state {
  static inline const char* name = "soma.cache_writer";
};

caf::behavior writing(caf::stateful_actor<cache_writer_state>*) {
  return {
    [](keep_atom, cache_write& w) {
      try {
        return cache_put(w.where, w.key, cache_identity{w.type, w.node, w.version}, w.bytes);
      } catch (const std::exception&) {
        return false; // not kept: the next forward with this input runs again
      }
    },
    [](recall_atom, cache_write& w) {
      try {
        if (auto hit = cache_get(w.where, w.key, cache_identity{w.type, w.node, w.version}))
          return caf::make_message(true, std::move(*hit));
      } catch (const std::exception&) {
        // not recalled: a miss
      }
      return caf::make_message(false, std::string{});
    },
  };
}

} // namespace

caf::actor spawn_cache_writer(caf::local_actor* parent) {
  return spawn_blocking_linked(parent, writing);
}

} // namespace soma::detail
