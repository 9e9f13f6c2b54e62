#pragma once

/// @file
/// soma::health::opinion: what a health rule thinks of something in a store.
///
/// An opinion is not a fact. The engine records what happened and never
/// judges it; an opinion is computed on read, from a record already
/// written, by a rule whose threshold anyone can argue with, and it is never
/// written back into the store. Every opinion says so: it names its rule,
/// its subject, what was measured, the threshold it was held against, since
/// when, and the word `opinion`.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma::health {

/// Prometheus's two states of an alert: a condition that holds, first for
/// less than its rule's `for` (pending), then for at least that (firing).
enum class status { pending, firing };

/// "pending" or "firing".
[[nodiscard]] std::string_view to_string(status x) noexcept;

/// Writes to_string(x).
std::ostream& operator<<(std::ostream& out, status x);

/// One opinion of one rule about one subject.
struct opinion {
  std::string rule;        ///< the rule's name, e.g. "quiet_machine"
  std::string kind;        ///< what the subject is: machine, run, node, host or trial
  std::string subject;     ///< e.g. "machine w1-4412", "node embed of run r", "trial 3 of study lr"
  std::string run;         ///< the run it is about; empty for a machine
  std::string measure;     ///< what `value` is, e.g. "quiet_s", "busy"
  double value = 0;        ///< what was measured (may be infinite: a claimant never heard from)
  double threshold = 0;    ///< the condition is value over threshold
  std::string threshold_is; ///< how the threshold was set, e.g. "5 x its reporting interval 0.5 s"
  std::int64_t since_us = 0; ///< when the condition began to hold, by the writers' clocks
  std::int64_t for_us = 0;   ///< the rule's `for`: pending until since_us + for_us
  status state = status::pending;

  /// One sentence, beginning with "opinion (<rule>, <state>):".
  [[nodiscard]] std::string says() const;
};

/// How a measured value or threshold is printed: up to 3 significant
/// decimals, "inf" / "nan" for what is not finite.
[[nodiscard]] std::string number(double x);

} // namespace soma::health

SOMA_API_END
