#pragma once

/// @file
/// Studies and their trials in a store (docs/trials.md): trials any process
/// claims, one write transaction a claim, so that no two claimants ever hold
/// the same trial, whether the store is a directory here or `soma://`.
///
/// Nothing here times a claim out: a claimant that dies leaves its trial
/// claimed, and the record says by whom and since when. Handing a trial back
/// is an act with a stated rule (reclaim): its claimant's readings are more
/// than S seconds behind the newest writer's, the rule quiet_s follows
/// everywhere (writer against writer, never against the reader's clock).
///
/// | call          | costs                                               |
/// | ------------- | --------------------------------------------------- |
/// | add_trials    | one write transaction for all of them               |
/// | claim_trial   | one write transaction (one seek, a delete, a put)   |
/// | end_trial     | one write transaction                               |
/// | end_and_claim | one write transaction: end_trial's and claim_trial's |
/// | reclaim       | one write transaction: a scan of the study's trials and of the machines' latest readings |
/// | studies       | one scan of every study's trials                    |
/// | trials        | one scan of the study's trials                      |

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

#include "soma/error.hpp"
#include "soma/export.hpp"
#include "soma/store/store.hpp"
#include "soma/trials/rows.hpp"

SOMA_API_BEGIN

namespace soma {

/// The longest study name, in bytes: a trial's run is `STUDY.N.ATTEMPT` and
/// must name a run (max_run_id).
inline constexpr std::size_t max_study_name = 200;

/// Nothing when `name` can name a study; else an error_code::invalid error
/// whose describe() is a sentence naming it and what to do (empty, a '/' or
/// '.', a control character, longer than max_study_name bytes).
[[nodiscard]] caf::expected<void> check_study_name(std::string_view name);

/// The store holds no study of the name asked for. Its trouble is `missing`.
class no_study_error : public store_error {
public:
  explicit no_study_error(const std::string& what) : store_error(what, store_trouble::missing) {}
};

/// An end of an attempt the store did not keep: the trial was handed back
/// (reclaim) or is not this claimant's. what() says which, and when.
class trial_refused : public store_error {
public:
  using store_error::store_error;
  trial_refused(const std::string& why, std::optional<trial_row> next)
    : store_error(why), next(std::move(next)) {}
  /// end_and_claim: the trial claimed all the same (the end was refused, the claim was not).
  std::optional<trial_row> next;
};

/// Adds `trials` to `study` (made, with `function`, when new), numbered on
/// from its last, in one write transaction; a study grows while it is being
/// claimed. Returns their numbers. Throws store_error (a bad study name, a
/// read-only store).
std::vector<std::uint64_t> add_trials(store& s, std::string_view study,
                                      const std::vector<values>& trials,
                                      std::string_view function = {});

/// Claims the waiting trial of `study` with the lowest number for
/// `claimant` (a machine id, hostname-pid), in one write transaction: first
/// writer wins. Waits up to `wait` for one to be added (polling the store's
/// last transaction every 2 ms; a served store holds the ask up to 1 s at a
/// time). The trial returned is claimed, its attempt counted, its run named
/// (trial_run). nullopt when none was waiting. Throws no_study_error.
[[nodiscard]] std::optional<trial_row> claim_trial(store& s, std::string_view study,
                                                   std::string_view claimant,
                                                   std::chrono::milliseconds wait = {});

/// Ends the attempt `claimed` (as claim_trial returned it): `done` with its
/// result, `broke` with the error, or `waiting` to let it go (`error` says
/// why), which keeps the attempt among the trial's abandoned ones and lets
/// the next claim take it. Throws trial_refused when the attempt is no longer
/// the trial's current one (it was handed back meanwhile: that result is not
/// kept, so no trial is ever done twice).
void end_trial(store& s, std::string_view study, const trial_row& claimed, trial_state state,
               const values& result = {}, const std::string& error = {});

/// end_trial, then claim_trial for the same claimant, in one write
/// transaction: what a claimant does between two trials, at the price of one
/// commit instead of two. Returns the next trial, or nullopt when none waits
/// (then claim_trial with a wait, if one should be waited for). Throws
/// trial_refused when the end was refused; its `next` holds the trial claimed
/// all the same.
[[nodiscard]] std::optional<trial_row> end_and_claim(store& s, std::string_view study,
                                                     const trial_row& claimed, trial_state state,
                                                     const values& result = {},
                                                     const std::string& error = {});

/// Hands back every claimed trial of `study` whose claimant's latest reading
/// is more than `quiet_over_s` seconds behind the newest reading of any
/// machine in the store (a claimant with no reading at all counts as
/// quieter than any S). Each handed-back attempt stays in the trial's
/// abandoned attempts with the rule and what was measured. One write
/// transaction. Returns the trials handed back. Throws no_study_error.
std::vector<std::uint64_t> reclaim(store& s, std::string_view study, double quiet_over_s);

/// A study and how many of its trials stand where.
struct study_summary {
  study_row study;
  std::uint64_t waiting = 0, claimed = 0, done = 0, broke = 0;
  std::uint64_t abandoned = 0; ///< attempts handed back or let go
};

/// Every study, by name. One scan of all trials.
[[nodiscard]] std::vector<study_summary> studies(const store& s);

/// Every trial of `study`, by number. One scan of its trials. Throws
/// no_study_error naming the studies there are.
[[nodiscard]] std::vector<trial_row> trials(const store& s, std::string_view study);

/// The study itself. Throws no_study_error.
[[nodiscard]] study_row study(const store& s, std::string_view name);

} // namespace soma

SOMA_API_END
