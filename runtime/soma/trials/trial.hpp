#pragma once

/// @file
/// soma::trial: a trial a claimant claimed, as its trial function sees it
/// (docs/trials.md): its study, number, attempt, run and params, the store it
/// came from and the actor system its graphs run in. A trial function is
/// what a node library gives `soma-node --claim` (SOMA_TRIAL_FUNCTIONS in
/// soma/node_library.hpp) and what soma::claimant runs (soma/trials/claimant.hpp).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <caf/fwd.hpp>

#include "soma/export.hpp"
#include "soma/store/store.hpp"
#include "soma/trials/rows.hpp"

SOMA_API_BEGIN

namespace soma {

/// A claimed trial, as its function sees it.
class trial {
public:
  trial(caf::actor_system& sys, soma::store s, std::string study, trial_row row)
    : sys_(sys), store_(std::move(s)), study_(std::move(study)), row_(std::move(row)) {}

  [[nodiscard]] const std::string& study() const noexcept { return study_; }
  [[nodiscard]] std::uint64_t number() const noexcept { return row_.number; }
  /// 1 for the first claim of this trial, 2 after it was handed back once...
  [[nodiscard]] std::uint32_t attempt() const noexcept { return row_.attempt; }
  /// The run this attempt records into (`<study>.<n>`, `.<attempt>` after the first).
  [[nodiscard]] const std::string& run() const noexcept { return row_.run; }
  [[nodiscard]] const values& params() const noexcept { return row_.params; }
  /// The parameter `name` as a T (values::get): throws value_missing naming it.
  template <class T>
  [[nodiscard]] T param(std::string_view name) const {
    return row_.params.get<T>(name);
  }
  /// The store the trial was claimed from: record its run there.
  [[nodiscard]] soma::store& store() noexcept { return store_; }
  /// The actor system its graphs run in.
  [[nodiscard]] caf::actor_system& system() noexcept { return sys_; }
  [[nodiscard]] const trial_row& row() const noexcept { return row_; }

private:
  caf::actor_system& sys_;
  soma::store store_;
  std::string study_;
  trial_row row_;
};

/// What a trial function returns: its result, named values (a final loss).
/// What it throws marks the trial broke with the error.
using trial_function = std::function<values(trial&)>;

} // namespace soma

SOMA_API_END
