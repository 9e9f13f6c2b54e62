#pragma once

/// @file
/// Studies and trials as bytes (schema/soma.capnp Study, Trial; docs/
/// formats.md): the payloads a store keeps inside their envelopes, and what
/// a claimant and a served store say to each other (schema/remote.capnp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include "soma/trials/rows.hpp"

namespace soma::wire {

// Every decode_* throws detail::undecodable when the bytes are not its message.

[[nodiscard]] std::string encode_trial(const trial_row& t);
[[nodiscard]] trial_row decode_trial(std::string_view bytes);

[[nodiscard]] std::string encode_study(const study_row& s);
[[nodiscard]] study_row decode_study(std::string_view bytes);

/// Trials to add to a study (made with `function` when new).
struct trials_add {
  std::string study;
  std::string function;
  std::vector<values> trials;
};
[[nodiscard]] std::string encode_trials_add(const trials_add& a);
[[nodiscard]] trials_add decode_trials_add(std::string_view bytes);

/// The numbers of trials added or handed back.
[[nodiscard]] std::string
encode_trial_numbers(const std::vector<std::uint64_t>& numbers);
[[nodiscard]] std::vector<std::uint64_t>
decode_trial_numbers(std::string_view bytes);

/// A claimant asks for the next waiting trial, and may be held up to
/// `wait_ms` for one to be added.
struct claim_ask {
  std::string study;
  std::string claimant;
  std::uint32_t wait_ms = 0;
};
[[nodiscard]] std::string encode_claim_ask(const claim_ask& a);
[[nodiscard]] claim_ask decode_claim_ask(std::string_view bytes);

[[nodiscard]] std::string encode_claim_answer(const std::optional<trial_row>& t);
[[nodiscard]] std::optional<trial_row> decode_claim_answer(std::string_view bytes);

/// A claimant ends its attempt: done (result), broke (error) or let go
/// (state waiting, error says why).
struct trial_end {
  std::string study;
  std::uint64_t number = 0;
  std::uint32_t attempt = 0;
  std::string claimant;
  trial_state state = trial_state::done;
  values result;
  std::string error;
};
[[nodiscard]] std::string encode_trial_end(const trial_end& e);
[[nodiscard]] trial_end decode_trial_end(std::string_view bytes);

/// Whether an end was kept; when not, why (describe() of its error, which
/// decodes as an error_code::refused error with the same text).
[[nodiscard]] std::string encode_trial_ended(const caf::expected<void>& ended);
[[nodiscard]] caf::expected<void> decode_trial_ended(std::string_view bytes);

/// end_and_claim's answer: whether the end was kept (as above), and the next trial.
[[nodiscard]] std::string
encode_trial_ended_claimed(const caf::expected<void>& ended, const std::optional<trial_row>& next);
[[nodiscard]] std::pair<caf::expected<void>, std::optional<trial_row>>
decode_trial_ended_claimed(std::string_view bytes);

struct reclaim_ask {
  std::string study;
  double quiet_over_s = 0;
};
[[nodiscard]] std::string encode_reclaim_ask(const reclaim_ask& a);
[[nodiscard]] reclaim_ask decode_reclaim_ask(std::string_view bytes);

} // namespace soma::wire
