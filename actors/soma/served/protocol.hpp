#pragma once

/// @file
/// The served store's protocol (store protocol 3), in one table: what a
/// client of `soma://HOST:PORT` (served/client.cpp) asks the session a
/// soma-node serving a store opened for it (served/session.cpp), and what
/// each operation answers. Requests and answers are Cap'n Proto bytes
/// (schema/remote.capnp, encoded in schema/soma/wire/ and, for readers'
/// questions, served/questions.cpp); docs/formats.md lists them.
///
/// | message                                          | to      | answer                 |
/// | ------------------------------------------------ | ------- | ---------------------- |
/// | (open_atom, actor client, string mode)           | worker  | actor session, or error |
/// | (store_atom, uint8 store_op, string request)     | session | string answer, or error |
///
/// A session opens in `store_mode` (reads and writes) or `store_read_mode`
/// (reads only: the server refuses every operation that writes). The
/// session ends when its client goes (the server monitors it).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include <caf/atom.hpp>

namespace soma::served {

using store_atom = caf::atom_constant<caf::atom("somastore")>;

/// The modes a store session opens in, as said on the wire. Protocol 1
/// ("store") copied the store to read it; protocol 2 ("store.2") named its
/// operations in text.
inline constexpr const char* store_mode = "store.3";
inline constexpr const char* store_read_mode = "store.3.read";
inline constexpr const char* store_mode_2 = "store.2";
inline constexpr const char* store_mode_1 = "store";

/// Every operation of a store session, as one byte on the wire.
enum class store_op : std::uint8_t {
  records,         ///< a recorder's batch, written in the next group commit, in its recorder's run
  reading,         ///< a machine reading, written in the next group commit
  copy,            ///< a part of a compacted copy of the whole store (soma copy)
  cache_get,       ///< a kept output, or none
  cache_put,       ///< keep an output
  trials_add,      ///< add trials to a study
  claim,           ///< claim a trial (held up to a second for one to come)
  trial_end,       ///< end a claimed trial
  trial_end_claim, ///< end one and claim the next, in one write transaction
  reclaim,         ///< hand back trials whose claimant went quiet
  ask_runs,        ///< readers' questions (soma/store/answers.hpp), from here on
  ask_run,
  ask_forwards,
  ask_curve,
  ask_facts,
  ask_nodes,
  ask_hosts,
  ask_tails,
  ask_standing,
  ask_readings,
  ask_readings_back,
  ask_studies,
  ask_trials,
  ask_study,
  ask_cache,
  ask_check,
  ask_version,
  ask_readings_back_all, ///< every machine's last few readings at a moment, in parts by bytes
};

/// Where the server does an operation.
enum class done_by : std::uint8_t {
  group_writer, ///< the one writer that commits what arrived together (readings, batches, trials)
  reader,       ///< one of a few blocking actors, the next free one
};

/// What the table says of an operation.
struct op_info {
  store_op op;
  std::string_view name;    ///< in errors and logs
  std::string_view request; ///< its Cap'n Proto message (schema/remote.capnp)
  std::string_view answer;
  bool writes;              ///< refused in a read-only session
  bool long_call;           ///< may take 60 s, not 5 (a part of a copy of the whole store)
  done_by by;
};

/// The table: one row per operation, in store_op's order.
inline constexpr std::array<op_info, 28> store_ops{{
  {store_op::records, "records", "RecordWrite", "RecordNumbers", true, false, done_by::group_writer},
  {store_op::reading, "reading", "Reading", "(nothing)", true, false, done_by::group_writer},
  {store_op::copy, "copy", "SnapshotAsk", "SnapshotPart", false, true, done_by::reader},
  {store_op::cache_get, "cache_get", "CacheAsk", "CacheAnswer", false, false, done_by::reader},
  {store_op::cache_put, "cache_put", "CacheKeep", "CacheKept", true, false, done_by::reader},
  {store_op::trials_add, "trials_add", "TrialsAdd", "TrialNumbers", true, false, done_by::group_writer},
  {store_op::claim, "claim", "ClaimAsk", "ClaimAnswer", true, false, done_by::reader},
  {store_op::trial_end, "trial_end", "TrialEnd", "TrialEnded", true, false, done_by::group_writer},
  {store_op::trial_end_claim, "trial_end_claim", "TrialEnd", "TrialEndedClaimed", true, false, done_by::group_writer},
  {store_op::reclaim, "reclaim", "ReclaimAsk", "TrialNumbers", true, false, done_by::reader},
  {store_op::ask_runs, "ask.runs", "Ask", "RunRows", false, false, done_by::reader},
  {store_op::ask_run, "ask.run", "Ask", "RunRows", false, false, done_by::reader},
  {store_op::ask_forwards, "ask.forwards", "Ask", "ForwardPage", false, false, done_by::reader},
  {store_op::ask_curve, "ask.curve", "Ask", "CurvePart", false, false, done_by::reader},
  {store_op::ask_facts, "ask.facts", "Ask", "FactsOf", false, false, done_by::reader},
  {store_op::ask_nodes, "ask.nodes", "Ask", "NodesPart", false, false, done_by::reader},
  {store_op::ask_hosts, "ask.hosts", "Ask", "HostsPart", false, false, done_by::reader},
  {store_op::ask_tails, "ask.tails", "Ask", "TailsPart", false, false, done_by::reader},
  {store_op::ask_standing, "ask.standing", "Ask", "Machines", false, false, done_by::reader},
  {store_op::ask_readings, "ask.readings", "Ask", "Machines", false, false, done_by::reader},
  {store_op::ask_readings_back, "ask.readings_back", "Ask", "Machines", false, false, done_by::reader},
  {store_op::ask_studies, "ask.studies", "Ask", "Studies", false, false, done_by::reader},
  {store_op::ask_trials, "ask.trials", "Ask", "Trials", false, false, done_by::reader},
  {store_op::ask_study, "ask.study", "Ask", "Study", false, false, done_by::reader},
  {store_op::ask_cache, "ask.cache", "Ask", "CacheRows", false, false, done_by::reader},
  {store_op::ask_check, "ask.check", "Ask", "CheckReport", false, false, done_by::reader},
  {store_op::ask_version, "ask.version", "Ask", "StoreVersion", false, false, done_by::reader},
  {store_op::ask_readings_back_all, "ask.readings_back_all", "Ask", "Machines", false, false, done_by::reader},
}};

/// The row of `op`.
[[nodiscard]] constexpr const op_info& info(store_op op) noexcept {
  return store_ops[static_cast<std::size_t>(op)];
}

/// The operation a byte from the wire names, or none.
[[nodiscard]] constexpr std::optional<store_op> op_of(std::uint8_t wire) noexcept {
  if (wire >= store_ops.size())
    return std::nullopt;
  return static_cast<store_op>(wire);
}

// The table is in store_op's order: info(op) is its row.
consteval bool in_order() {
  for (std::size_t i = 0; i < store_ops.size(); ++i)
    if (static_cast<std::size_t>(store_ops[i].op) != i)
      return false;
  return static_cast<std::size_t>(store_op::ask_readings_back_all) + 1 == store_ops.size();
}
static_assert(in_order(), "served::store_ops lists every store_op once, in its order");

} // namespace soma::served
