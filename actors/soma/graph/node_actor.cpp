#include "soma/graph/node_actor.hpp"

#include <caf/local_actor.hpp>

namespace soma::detail {

void node_threw(forward_state& fw, const std::string& node, std::exception_ptr error,
                clock::time_point began, clock::time_point ended, caf::local_actor* self) {
  auto text = what(std::move(error));
  if (fw.heard()) // else `began` and `ended` were never read
    fw.emit(failed_fact(node, text, fw.since_began_us(began), micros(ended - began)), self->context());
  if (!fw.take_end(node, self->context()))
    return; // its deadline ended it while the node ran
  try {
    fw.emit(broke_fact(node, text, fw.since_began_us(clock::now())), self->context());
  } catch (...) {
    // Out of memory while saying it: the forward is ours to end all the same.
  }
  fw.fail(node, std::move(text), self);
}

void broke_after_running(forward_state& fw, const std::string& node, std::exception_ptr error,
                         caf::local_actor* self) noexcept {
  if (fw.ended())
    return;
  bool taken = false;
  try {
    auto text = what(std::move(error));
    if (!fw.take_end(node, self->context()))
      return;
    taken = true;
    fw.emit(broke_fact(node, text, fw.since_began_us(clock::now())), self->context());
    fw.fail(node, std::move(text), self);
  } catch (...) {
    // Out of memory while saying so: end the forward with the least we can.
    if (taken || fw.take_end(node, nullptr)) {
      try {
        fw.fail(node, "the forward could not be carried on", self);
      } catch (...) {
      }
    }
  }
}

void node_recalled(forward_state& fw, const std::string& node, clock::time_point began,
                   clock::time_point ended, std::size_t bytes, caf::local_actor* self) {
  if (!fw.heard())
    return;
  fw.emit(recalled_fact(node, fw.since_began_us(began), micros(ended - began), bytes),
          self->context());
}

void node_kept(forward_state& fw, const std::string& node, clock::time_point began,
               clock::time_point ended, std::size_t bytes, caf::local_actor* self) {
  if (!fw.heard())
    return;
  fw.emit(kept_fact(node, fw.since_began_us(began), micros(ended - began), bytes), self->context());
}

void node_ran_without_store(forward_state& fw, const std::string& node, clock::time_point began,
                            clock::time_point ended, caf::local_actor* self) {
  auto x = ran_fact(node, fw.since_began_us(began), micros(ended - began));
  // Said once per node: it is cached, but the forward gave it no store.
  x.fields.emplace_back("cache", "no store");
  fw.emit(std::move(x), self->context());
}

void node_ran(forward_state& fw, const std::string& node, clock::time_point began,
              clock::time_point ended, caf::local_actor* self) {
  fw.emit(ran_fact(node, fw.since_began_us(began), micros(ended - began)), self->context());
}

} // namespace soma::detail
