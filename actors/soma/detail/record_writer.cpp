#include "soma/detail/record_writer.hpp"

#include <algorithm>
#include <random>
#include <span>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/wire/record_write.hpp"
#include "soma/error.hpp"
#include "soma/store/record_log.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/remote.hpp"

namespace soma::detail {

namespace {

struct writer_state {
  std::optional<store> where;
  writer_options options;
  std::optional<record_log> log;
  std::vector<held_forward> unwritten; ///< kept from a failed write
  std::uint64_t recorder = 0; ///< who this writer is, to a served store's server
  std::vector<std::uint64_t> asked; ///< the forward ids of the batch being written (once_for)
  std::vector<log_entry> entries;   ///< reused
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

// Writes the first `count` unwritten forwards in one transaction, adding
// their numbers to `out`. Throws what the transaction threw.
void write_chunk(writer_state& st, std::size_t count, record_numbers& out) {
  st.entries.clear();
  for (std::size_t i = 0; i < count; ++i) {
    auto& f = st.unwritten[i];
    st.entries.push_back(log_entry{
      f.id, f.number,
      make_record(f.facts, 0, f.state, f.took_us, f.when, st.options.summarising), &f.facts});
  }
  auto numbered = st.log->write(st.entries, st.asked);
  st.unwritten.erase(st.unwritten.begin(), st.unwritten.begin() + static_cast<std::ptrdiff_t>(count));
  out.numbered.insert(out.numbered.end(), numbered.begin(), numbered.end());
}

// A served store: the server's own writer for this recorder writes the batch
// as if local and keeps what it could not write; what did not reach it stays
// here, to go with the next batch.
record_numbers write_remote(writer_state& st, remote_link& link) {
  record_numbers out;
  try {
    auto answer = decode_record_numbers(
      link.call("records", encode_record_write({st.recorder, st.options, st.unwritten})));
    st.unwritten.clear();
    // Cleared once: a later session of this recorder (after a reconnect)
    // must not clear what this one wrote.
    st.options.overwrite = false;
    out.numbered = std::move(answer.numbered);
    if (answer.error)
      out.error = "the served store " + link.address() + ": " + *answer.error;
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

record_numbers write(writer_actor* self, record_batch& batch) {
  auto& st = self->state;
  merge(st.unwritten, std::move(batch.forwards));
  if (st.options.once_for) {
    st.asked.clear();
    for (auto& f : st.unwritten)
      st.asked.push_back(f.id);
  }
  if (auto* link = st.where->remote())
    return write_remote(st, *link);
  record_numbers out;
  while (!st.unwritten.empty()) {
    try {
      write_chunk(st, std::min(st.unwritten.size(), st.options.batch), out);
    } catch (const std::exception& e) {
      // store_error, or anything else: what is left stays unwritten, to be
      // tried with the next batch; the writer lives on.
      out.error = e.what();
      break;
    }
  }
  return out;
}

caf::behavior writing(writer_actor* self, store where, writer_options options) {
  self->state.where = std::move(where);
  self->state.options = std::move(options);
  auto& o = self->state.options;
  o.batch = std::max<std::size_t>(1, o.batch);
  if (!self->state.where->remote())
    self->state.log.emplace(*self->state.where,
                            log_options{o.run, o.summarising, o.overwrite, o.once_for});
  self->state.recorder = std::random_device{}() * (std::uint64_t{1} << 32) ^ std::random_device{}();
  return {
    [self](write_atom, record_batch& batch) { return write(self, batch); },
  };
}

} // namespace

caf::actor spawn_record_writer(caf::actor_system& sys, store where, writer_options options) {
  return sys.spawn<caf::detached>(writing, std::move(where), std::move(options));
}

} // namespace soma::detail
