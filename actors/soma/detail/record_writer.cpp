#include "soma/detail/record_writer.hpp"

#include <algorithm>
#include <random>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/store/backend.hpp"

namespace soma::detail {

namespace {

struct writer_state {
  /// Shared with the functor that runs when the writer ends: CAF destroys
  /// an actor's state before its attached functors run.
  std::shared_ptr<record_sink> sink;
  std::shared_ptr<bool> closed = std::make_shared<bool>(false); ///< its run was marked ended
  std::vector<held_forward> unwritten; ///< kept from a failed write
  bool once = false;                   ///< batches may come again (a served store's server)
  std::vector<std::uint64_t> asked;    ///< the forward ids of the batch being written (once)
  static inline const char* name = "soma.record_writer";
};

using writer_actor = caf::stateful_actor<writer_state>;

// Adds `batch` to what is unwritten; a forward already there is replaced.
void merge(std::vector<held_forward>& unwritten, std::vector<held_forward>&& batch) {
  if (unwritten.empty()) {
    unwritten = std::move(batch);
    return;
  }
  for (auto& f : batch) {
    auto it = std::find_if(unwritten.begin(), unwritten.end(),
                           [&](const held_forward& u) { return u.id == f.id && f.id != 0; });
    if (it != unwritten.end())
      *it = std::move(f);
    else
      unwritten.push_back(std::move(f));
  }
}

record_numbers write(writer_actor* self, record_batch& batch) {
  auto& st = self->state;
  merge(st.unwritten, std::move(batch.forwards));
  if (st.once) {
    st.asked.clear();
    for (auto& f : st.unwritten)
      st.asked.push_back(f.id);
  }
  auto out = st.sink->write(st.unwritten, st.asked, batch.closing);
  if (batch.closing && st.unwritten.empty() && !out.error)
    *st.closed = true;
  return out;
}

caf::behavior writing(writer_actor* self, store where, writer_options options) {
  // Who this writer is, to a served store's server: one writer each.
  auto recorder = std::random_device{}() * (std::uint64_t{1} << 32) ^ std::random_device{}();
  self->state.once = options.once_for != 0;
  self->state.sink = where.backend().records(options, recorder);
  if (self->state.once) {
    // A served store's server: a client that goes without closing its run
    // leaves the run marked so (run_meta::dropped_us).
    self->attach_functor([sink = self->state.sink, closed = self->state.closed](const caf::error&) {
      if (!*closed)
        sink->dropped();
    });
  }
  return {
    [self](write_atom, record_batch& batch) { return write(self, batch); },
  };
}

} // namespace

caf::actor spawn_record_writer(caf::actor_system& sys, store where, writer_options options) {
  return sys.spawn<caf::detached>(writing, std::move(where), std::move(options));
}

} // namespace soma::detail
