#pragma once

/// @file
/// Prometheus' text exposition format (version 0.0.4): families of samples
/// with labels, as `/metrics` of `soma serve` and `soma-node --metrics`
/// answer. Only what a store or a worker holds is exposed: counts and
/// readings, never an opinion.

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "soma/store/readers.hpp"
#include "soma/store/store.hpp"

namespace soma::web {

/// A sample's labels: (name, value) pairs, in the order given.
using labels = std::vector<std::pair<std::string, std::string>>;

/// Builds one exposition: a family's `# HELP` and `# TYPE` lines, then its
/// samples. Label values are escaped (backslash, double quote, newline);
/// numbers are written so they read back as themselves (NaN, +Inf, -Inf).
class exposition {
public:
  /// Starts a family; `type` is counter, gauge or untyped.
  void family(std::string_view name, std::string_view type, std::string_view help);

  /// A sample of the family last started.
  void sample(const labels& with, double value);

  /// A sample named otherwise (a family's _total, say), same rules.
  void sample(std::string_view name, const labels& with, double value);

  [[nodiscard]] const std::string& text() const noexcept { return text_; }

  /// The Content-Type of the format.
  static constexpr std::string_view content_type = "text/plain; version=0.0.4; charset=utf-8";

private:
  std::string text_;
  std::string name_;
};

/// The store's exposition: soma_runs, per run soma_run_forwards,
/// soma_run_broke and soma_run_took_seconds, and per machine (its latest
/// reading) soma_machine_busy, soma_machine_memory, soma_machine_cores,
/// soma_machine_served and soma_machine_quiet_seconds, of the runs given
/// (what runs() or a runs_tally answered). One scan of the latest
/// readings. Throws store_error.
void store_metrics(const store& s, const std::vector<run_row>& rows, exposition& out);

} // namespace soma::web
