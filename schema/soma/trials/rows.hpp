#pragma once

/// @file
/// What a study and its trials are (docs/trials.md): the rows a store keeps
/// of each. Kept and claimed by soma/store/trials.hpp; claimed and run by
/// soma/trials/claimant.hpp; a trial function is given soma/trials/trial.hpp.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/values.hpp"

SOMA_API_BEGIN

namespace soma {

/// Where a trial stands.
enum class trial_state : std::uint8_t {
  waiting, ///< nobody holds it: the next claim may take it
  claimed, ///< a claimant holds it
  done,    ///< its function returned a result
  broke,   ///< its function threw
};

[[nodiscard]] const char* to_string(trial_state s) noexcept;
std::ostream& operator<<(std::ostream& out, trial_state s);

/// An attempt at a trial that ended without a result: handed back by
/// soma::reclaim (its claimant went quiet), or let go by its claimant.
struct attempt_row {
  std::uint32_t attempt = 0; ///< 1 for the trial's first claim
  std::string claimant;      ///< the claimant's machine id (hostname-pid)
  std::int64_t claimed_us = 0;
  std::string run;           ///< the run it recorded into
  std::int64_t ended_us = 0; ///< when it was handed back, by the handing writer's clock
  std::string why;           ///< the rule and what was measured, or the claimant's word
};

/// One trial of a study, as the store keeps it.
struct trial_row {
  std::uint64_t number = 0; ///< from 0, in the order added
  values params;
  trial_state state = trial_state::waiting;
  std::uint32_t attempt = 0;   ///< the current attempt; 0 while never claimed
  std::string claimant;        ///< who holds (claimed) or held (done, broke) it
  std::int64_t claimed_us = 0; ///< when, by the claimant's clock
  std::string run;             ///< the current attempt's run
  std::int64_t ended_us = 0;   ///< when it was done or broke
  values result;               ///< done: what its function returned
  std::string error;           ///< broke: what its function threw
  std::vector<attempt_row> abandoned; ///< earlier attempts, oldest first
  std::int64_t added_us = 0;
};

/// A study: a named set of trials in a store.
struct study_row {
  std::string name;
  std::int64_t created_us = 0;
  std::uint64_t trials = 0; ///< how many it has
  std::string function;     ///< the trial function `soma-node --claim` runs when told no other
};

/// The run an attempt records into: `STUDY.NUMBER`, then `.ATTEMPT`
/// from the second attempt on, so a handed-back attempt's forwards stay
/// readable beside the next one's.
[[nodiscard]] std::string trial_run(std::string_view study, std::uint64_t number,
                                    std::uint32_t attempt);

} // namespace soma

SOMA_API_END
