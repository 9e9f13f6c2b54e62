#pragma once

/// @file
/// One trip: a forward's value sent to a worker's session for a slice, in
/// flight until the worker answers, the link is lost or the deadline passes.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <caf/actor.hpp>

#include "soma/forward_state.hpp"
#include "soma/remote/worker_link.hpp"

namespace soma::detail {

/// One trip in flight.
struct trip {
  forward_ptr forward;
  std::int64_t began_us = 0;        ///< when it left, since the forward began
  std::chrono::steady_clock::time_point sent;
  std::int64_t sent_unix_us = 0;    ///< when it left, unix µs by this machine's clock
  std::string input;                ///< the value, kept to resend after shipping code (mode::network)
  std::size_t input_bytes = 0;      ///< its size (slice_route::large)
  std::string key;                  ///< a cached slice's key for this input
  caf::actor session;
  std::shared_ptr<worker_link> link;
  std::size_t ships = 0;            ///< libraries shipped for it so far
  bool no_store = false;            ///< a cached slice's first trip with no store: its `ran` says so
};

} // namespace soma::detail
