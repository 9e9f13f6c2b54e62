#pragma once

/// @file
/// How a forward ends: a blocked caller is released, or an actor that asked
/// is answered.
///
/// Part of what the templates of soma/graph.hpp compile in your program, so
/// it is installed; it is not an API: its names are in soma::detail and
/// may change with any release.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/send.hpp>
#include <caf/local_actor.hpp>
#include <caf/response_promise.hpp>
#include <caf/typed_response_promise.hpp>

#include "soma/error.hpp"
#include "soma/export.hpp"
#include "soma/forward_error.hpp"
#include "soma/forward_state.hpp"
#include "soma/graph/parking.hpp"

SOMA_API_BEGIN

namespace soma::detail {

/// Tells a forward's timer that its deadline came.
using expire_atom = caf::atom_constant<caf::atom("somaexpire")>;

/// What a forward's timer keeps: nothing but its name.
struct deadline_state {
  static inline const char* name = "soma.deadline";
};

/// A forward whose caller blocks in typed_graph::forward until it ends.
template <class Out>
class blocking_forward final : public forward_result<Out> {
public:
  explicit blocking_forward(const soma::watching* w) : forward_result<Out>(w) {}

  void complete(Out&& value, caf::local_actor*) override {
    try {
      value_.emplace(std::move(value));
    } catch (const std::exception& e) {
      failure_.emplace("", std::string{"the value could not be handed over: "} + e.what());
    } catch (...) {
      failure_.emplace("", "the value could not be handed over");
    }
    parking_.release();
  }

  void fail(std::string node, std::string error, caf::local_actor*) override {
    failure_.emplace(std::move(node), std::move(error));
    parking_.release();
  }

  /// Waits for the end; returns the value or throws forward_error, or
  /// watcher_error when the forward finished but a callable watcher threw.
  Out take() {
    if (auto& until = this->deadline()) {
      if (!parking_.wait_until(*until)) {
        if (this->claim_for_caller())
          throw forward_error(this->where(), this->deadline_error());
        parking_.wait(); // an actor took the end first: it hands it over now
      }
    } else {
      parking_.wait();
    }
    if (failure_)
      throw forward_error(std::move(failure_->first), std::move(failure_->second));
    if (auto& e = this->watcher_error())
      throw soma::watcher_error(*e);
    return std::move(*value_);
  }

  /// Released when the forward ended (caller_nodes::run watches it).
  [[nodiscard]] const parking& parked() const noexcept { return parking_; }

private:
  parking parking_;
  std::optional<Out> value_;
  std::optional<std::pair<std::string, std::string>> failure_;
};

/// A forward an actor asked for with `(forward_atom, In, ...)`; the answer
/// goes straight from the last node actor to the asker.
template <class Out>
class requested_forward final : public forward_result<Out> {
public:
  requested_forward(soma::watching w, caf::typed_response_promise<Out> promise)
    : forward_result<Out>(std::move(w)), promise_(std::move(promise)) {}

  ~requested_forward() override {
    // Dropped on the way: a node actor went away with this forward queued.
    if (!answered_)
      promise_.deliver(make_error(error_code::forward_dropped, "",
                                  "the graph went away before the forward finished"));
  }

  /// The actor that ends the forward at its deadline; told to go when the
  /// forward ends first, so it holds nothing until a distant deadline.
  void timed_by(caf::actor timer) { timer_ = std::move(timer); }

  void complete(Out&& value, caf::local_actor* self) override {
    auto done = timer_done();
    auto rp = answer_from(self);
    try {
      if (auto& e = this->watcher_error())
        rp.deliver(make_error(error_code::watcher_failed, "", *e));
      else
        rp.deliver(std::move(value));
    } catch (const std::exception& e) {
      rp.deliver(make_error(error_code::node_failed, "",
                            std::string{"the value could not be handed over: "} + e.what()));
    }
  }

  void fail(std::string node, std::string error, caf::local_actor* self) override {
    auto done = timer_done();
    answer_from(self).deliver(make_error(error_code::node_failed, std::move(node), std::move(error)));
  }

private:
  // Stops the timer once the answer is on its way (when the scope ends).
  auto timer_done() {
    struct stopping {
      caf::actor timer;
      ~stopping() {
        if (timer)
          caf::anon_send_exit(timer, caf::exit_reason::user_shutdown);
      }
    };
    return stopping{std::move(timer_)};
  }

  caf::actor timer_;
  // Answers as the actor running now, so the reply is scheduled from the
  // right thread, to whoever asked the graph actor.
  caf::response_promise answer_from(caf::local_actor* self) {
    answered_ = true;
    caf::response_promise& p = promise_;
    return caf::response_promise{self->ctrl(), p.source(), p.stages(), p.id()};
  }

  caf::typed_response_promise<Out> promise_;
  bool answered_ = false;
};

} // namespace soma::detail

SOMA_API_END
