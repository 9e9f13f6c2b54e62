#include "soma/detail/record_writer.hpp"

#include <algorithm>
#include <random>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/detail/deterministic.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/write_group.hpp"

namespace soma::detail {

namespace {

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

} // namespace

run_writing::run_writing(const store& where, const writer_options& options,
                         std::uint64_t recorder)
  : sink_(where.backend().records(options, recorder)), once_(options.once_for != 0) {}

run_writing::~run_writing() = default;

void run_writing::take(record_batch& batch) {
  merge(unwritten_, std::move(batch.forwards));
  if (once_) {
    asked_.clear();
    for (auto& f : unwritten_)
      asked_.push_back(f.id);
  }
}

void run_writing::closed_if(bool closing, const record_numbers& out) {
  if (closing && unwritten_.empty() && !out.error)
    closed_ = true;
}

record_numbers run_writing::write(record_batch& batch) {
  take(batch);
  auto out = sink_->write(unwritten_, asked_, batch.closing);
  closed_if(batch.closing, out);
  return out;
}

std::unique_ptr<group_part> run_writing::part(record_batch& batch,
                                              std::function<void(record_numbers)> done) {
  take(batch);
  return sink_->part(unwritten_, asked_, batch.closing,
                     [this, closing = batch.closing, done = std::move(done)](record_numbers out) {
                       closed_if(closing, out);
                       done(std::move(out));
                     });
}

void run_writing::dropped() noexcept {
  if (!closed_)
    sink_->dropped();
}

namespace {

struct writer_state {
  std::unique_ptr<run_writing> run;
  static inline const char* name = "soma.record_writer";
};

using writer_actor = caf::stateful_actor<writer_state>;

caf::behavior writing(writer_actor* self, store where, writer_options options) {
  // Who this writer is, to a served store's server: one writer each.
  auto recorder = std::random_device{}() * (std::uint64_t{1} << 32) ^ std::random_device{}();
  self->state.run = std::make_unique<run_writing>(where, options, recorder);
  return {
    [self](write_atom, record_batch& batch) { return self->state.run->write(batch); },
  };
}

} // namespace

caf::actor spawn_record_writer(caf::actor_system& sys, store where, writer_options options) {
  return spawn_blocking(sys, writing, std::move(where), std::move(options));
}

} // namespace soma::detail
