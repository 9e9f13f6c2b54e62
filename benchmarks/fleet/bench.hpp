#pragma once

// What the fleet benchmark's parts share: the options, the store it reads
// (100 machines' readings and a 10,000-forward remote run), a timed row, and
// the worker's cost of writing readings. See benchmarks/README.md.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "soma/store/store.hpp"

namespace bench {

struct fleet_options {
  std::size_t machines = 100;  ///< machines writing readings into the store
  std::size_t readings = 600;  ///< readings each (the retention bound)
  std::size_t forwards = 10000; ///< forwards of the remote run
  std::size_t reps = 9;         ///< calls of every reader row (median shown)
  std::size_t idle_s = 10;      ///< seconds a worker is left idle, per repetition
  std::size_t worker_reps = 3;  ///< repetitions of the worker's cost
  std::string dir;              ///< scratch directory
  std::string rows;             ///< letters: s (readers), c (the command), w (worker); empty: all

  [[nodiscard]] bool wants(char letter) const {
    return rows.empty() || rows.find(letter) != std::string::npos;
  }
};

/// The run the store holds, and its graph host's machine.
inline const std::string fleet_run = "bench";
inline const std::string fleet_host = "w1";

/// A machine's id in the store: machine 0 is the one w1's machine facts name.
std::string machine_id(std::size_t m);

/// What building the store took, to say beside the rows.
struct built_store {
  double put_reading_us = 0; ///< per put_reading, durable commit included (median of batches)
  double put_reading_cpu_us = 0; ///< the CPU time of the writing thread, per put_reading
  double run_ms = 0;         ///< writing the remote run, one transaction
};

/// Writes opt.machines × opt.readings readings with soma::put_reading, tick
/// by tick as workers reporting every 0.5 s would, and the remote run of
/// opt.forwards forwards (records and fact blobs as a recorder leaves them).
built_store write_fleet_store(soma::store& s, const fleet_options& opt);

/// One timed line of the table.
struct timed_row {
  std::string name;
  std::vector<double> ms; ///< one per repetition
  double floor_ms = 0;    ///< the row the `x floor` column divides by; 0: none
  double target_ms = 0;   ///< the issue's target; 0: none
  std::string note;       ///< what it read, said after the target
  std::vector<std::string> problems;
};

/// The readers (standing, hosts, fleet) next to bare LMDB scans of the same
/// keys, each called opt.reps times after one warm-up; checks what they read.
std::vector<timed_row> reader_rows(const soma::store& s, const fleet_options& opt);

/// `soma standing` and `soma fleet RUN` as a user runs them (a process
/// each, stdout to /dev/null), next to `soma --version` (the process alone).
std::vector<timed_row> command_rows(const std::string& store_dir, const fleet_options& opt);

/// One way of starting an idle soma-node.
struct worker_variant {
  std::string name;
  std::string store;            ///< its --store directory (a repetition number added); empty: none
  std::vector<double> pct;      ///< CPU in % of one core over the window, per repetition
  /// The same, of its threads named caf.actor and caf.clock only (detached
  /// actors, the reporter among them, and CAF's timer), per repetition.
  std::vector<double> detached_pct;
  std::vector<double> readings; ///< readings it wrote in the window, per repetition
};

/// What a reading costs a worker: CPU of idle soma-node processes, started
/// together, over the same window: without --store (the reference, first),
/// with `--store S --reporting 0.5`, and the same with S on tmpfs.
struct worker_cost {
  std::vector<worker_variant> variants;
  std::vector<std::string> problems;
};

worker_cost measure_worker(const fleet_options& opt);

} // namespace bench
