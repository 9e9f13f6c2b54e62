#pragma once

/// @file
/// Trials in a store on this host: what the local backend and a served
/// store's server call (soma/store/trials.hpp has the calls users make).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include "soma/store/trials.hpp"

namespace soma::wire {
struct trial_end;
} // namespace soma::wire

namespace soma::detail {

class environment;
class group_part;

/// The local backend's side of the calls above (the served store's server
/// calls the same on its directory).
std::vector<std::uint64_t> add_trials_at(environment& env, std::string_view study,
                                         const std::vector<values>& trials,
                                         std::string_view function);
std::optional<trial_row> claim_trial_at(environment& env, std::string_view study,
                                        std::string_view claimant, std::chrono::milliseconds wait);
[[nodiscard]] caf::expected<void> end_trial_at(environment& env, std::string_view study,
                                               std::uint64_t number, std::uint32_t attempt,
                                               std::string_view claimant, trial_state state,
                                               const values& result, const std::string& error);
std::vector<std::uint64_t> reclaim_at(environment& env, std::string_view study,
                                      double quiet_over_s);
[[nodiscard]] std::pair<caf::expected<void>, std::optional<trial_row>>
end_and_claim_at(environment& env, std::string_view study, std::uint64_t number,
                 std::uint32_t attempt, std::string_view claimant, trial_state state,
                 const values& result, const std::string& error);

/// add_trials_at, end_trial_at and end_and_claim_at as parts of a group
/// written in one transaction (soma/store/detail/write_group.hpp; what a
/// served store's server does with the trials of all its clients). Each
/// checks its study and state at once (store_error); `done` hears, once
/// the group is done, what the call would have returned, or the store's
/// error as data (as_error).
[[nodiscard]] std::unique_ptr<group_part>
add_trials_part(environment& env, std::string study, std::vector<values> trials,
std::string function,
std::function<void(caf::expected<std::vector<std::uint64_t>>)> done);
[[nodiscard]] std::unique_ptr<group_part>
end_trial_part(environment& env, wire::trial_end end,
               std::function<void(caf::expected<caf::expected<void>>)> done);
[[nodiscard]] std::unique_ptr<group_part> end_and_claim_part(
  environment& env, wire::trial_end end,
  std::function<void(caf::expected<std::pair<caf::expected<void>, std::optional<trial_row>>>)>
    done);

/// Nothing when the entry `key` = `value` of the trials database is sound
/// (for soma check); else an error_code::damaged error saying what is wrong.
[[nodiscard]] caf::expected<void> check_trials_entry(std::string_view key, std::string_view value);

} // namespace soma::detail
