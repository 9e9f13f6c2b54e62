#pragma once

/// @file
/// Running one slice on a worker: a Slice header and the first node's input
/// in, a SliceResult header and the last node's output out.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "soma/fact.hpp"
#include "soma/node_library.hpp"
#include "soma/worker/catalog.hpp"
#include "soma/wire/slice.hpp"

namespace soma::serve {

/// The slice a session ran last, bound: a client sends the same header with
/// every trip of a slice, so it is decoded and bound once.
struct slice_plan {
  std::string header;
  std::vector<wire::slice_node> nodes;
  std::vector<detail::remote_node*> instances; ///< owned by the session's catalog
};

/// How a slice's answer ended, as a worker counts it.
enum class slice_end {
  ran,        ///< every node ran
  failed,     ///< a node threw
  refused,    ///< refused: undecodable, an unknown node, other code, a node not made, a value
              ///< that does not encode
  needs_code, ///< not run for lack of code: the slice comes again once it is shipped
};

/// When a worker's session took a slice: its node's stamps (`began_us`)
/// count from here, and the answer says it on the worker's wall clock with
/// how long the slice was held (docs/critical.md).
struct slice_taken {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::now();
  std::int64_t unix_us = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
};

/// Runs the slice `header` with the nodes of `catalog` on `input` (the first
/// node's In, encoded) and answers (SliceResult header, the last node's Out
/// encoded; empty unless it ran to the end). Inside the slice each value
/// stays a C++ value: decoded once at its start, encoded once at its end.
/// `first` (a `machine` fact) leads the facts when given. Never throws for
/// bad bytes: they are a badSlice answer. `how`, when given, is set to how
/// the answer ended. `taken`: when the session took it (by default, now).
std::pair<std::string, std::string> run_slice(session_catalog& catalog, slice_plan& plan,
                                              std::string_view header, std::string_view input,
                                              std::optional<fact> first, slice_end* how = nullptr,
                                              const slice_taken& taken = {});

} // namespace soma::serve
