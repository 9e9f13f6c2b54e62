#pragma once

/// @file
/// Which trial a run belongs to: what a run recorded for a trial is given
/// from it (its parameters and its study) when its writer says nothing.

#include <optional>
#include <string>
#include <string_view>

#include <lmdb.h>

#include "soma/trials/rows.hpp"

namespace soma::detail {

class environment;

/// A trial and the study it is of.
struct study_trial {
  std::string study;
  trial_row trial;
};

/// The trial whose attempt recorded (or records) into `run`, read in `txn`
/// (`trials`: the trials database's handle; 0: none): `<study>.<n>` and
/// `<study>.<n>.<attempt>` name one, when the store has that trial and it
/// gave that run to one of its attempts. nullopt for any other run; a
/// trial that does not decode counts as none (`soma check` reports it).
[[nodiscard]] std::optional<study_trial> trial_of_run_in(const environment& env, MDB_txn* txn,
                                                       MDB_dbi trials, std::string_view run);

} // namespace soma::detail
