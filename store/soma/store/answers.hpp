#pragma once

/// @file
/// What a store answers its readers: each question soma's readers ask
/// (readers.hpp, tails.hpp, hosts.hpp, readings.hpp, trials.hpp, cache.hpp,
/// check.hpp), as a backend answers it. The local backend answers from its
/// environment; a served store (`soma://`) sends the question to the host
/// that holds the store, whose server answers it with its local backend,
/// so only the answer crosses the wire (docs/fleet.md, "A served store").
///
/// Every question is answered from one read transaction of its own, and a
/// question whose answer can be long is asked in bounded parts: the reader
/// asks again from where the last part ended, so no reader, however slow,
/// holds a snapshot of the store open for longer than one part takes (LMDB
/// keeps every page an open snapshot sees, and the file would grow). The
/// limits below bound what one part may hold; a server answers at most
/// that much whatever a client asks for.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/reading.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/check.hpp"
#include "soma/store/hosts.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/tails.hpp"
#include "soma/store/trials.hpp"
#include "soma/trials/rows.hpp"

SOMA_API_BEGIN

namespace soma::detail {

/// The most runs one part of `runs` lists.
inline constexpr std::size_t runs_per_part = 1024;
/// The most records one part of `forwards` holds.
inline constexpr std::size_t forwards_per_part = 4096;
/// The most points one part of a curve holds.
inline constexpr std::size_t points_per_part = 16384;
/// The most forwards one part of `nodes` or `hosts` reads (its answer is a
/// row per node or host, whatever the count).
inline constexpr std::size_t blobs_per_part = 16384;
/// The most run tails one part of `tails` holds, and the most records and
/// bytes of records and fact blobs it may hold, as an answer carries them
/// (a blob of format 4 as format 3 writes it): a tail longer than what is
/// left of a part is cut, and its older forwards come in the next.
inline constexpr std::size_t tails_per_part = 64;
inline constexpr std::size_t records_per_tails_part = 16384;
inline constexpr std::size_t bytes_per_tails_part = std::size_t{4} << 20;
/// The most machines, readings, trials or cache entries one part lists.
inline constexpr std::size_t rows_per_part = 1024;
/// The most trials one part of `studies` sums (the part ends after the study
/// that passes it; a study is summed whole), and the most studies it lists.
inline constexpr std::size_t trials_per_studies_part = 65536;
inline constexpr std::size_t studies_per_part = 256;
/// The most readings one part of `readings_back_all` holds, and the most
/// stored bytes they may take (the part ends after the machine that passes
/// either), so that a fleet's walk back takes parts by its bytes, never a
/// round trip per machine.
inline constexpr std::size_t readings_per_back_part = 16384;
inline constexpr std::size_t bytes_per_back_part = std::size_t{4} << 20;
/// The most readings of one machine one part of `readings_back_all` holds.
inline constexpr std::size_t back_per_machine_cap = 64;

/// Part of a curve: the points of forwards `from` .. `next` - 1 that told
/// the value, and how the curve is read.
struct curve_part {
  curve_cost cost = curve_cost::scan;
  std::vector<std::pair<std::uint64_t, double>> points;
  /// Each point's forward's when_us, beside `points`, when asked for; empty
  /// otherwise, and from a server of a soma before 0.5, which sends none.
  std::vector<std::int64_t> when_us;
  std::uint64_t next = 0;  ///< where the next part begins
  std::uint64_t total = 0; ///< the run's forwards as this part saw it
};

/// Part of a tally over fact blobs: nodes' rows (node_tally's sums, mean_us
/// not yet computed) or hosts' rows (host_tally's, with each row's trips),
/// for forwards `from` .. `next` - 1.
struct nodes_part {
  std::vector<node_row> rows;
  std::uint64_t next = 0;
  std::uint64_t total = 0;
};

struct hosts_part {
  std::vector<host_row> rows;              ///< in order of first appearance; waiting_us not computed
  std::vector<std::int64_t> trips;         ///< per row: its `left` facts' took_us, added
  std::map<std::string, fact> machines;    ///< graph host -> its last `machine` fact in the part
  std::uint64_t next = 0;
  std::uint64_t total = 0;
};

/// Part of `tails`: the tails of some runs, and the run to go on after.
/// When `cut`, the last tail holds only its newest forwards (and their fact
/// blobs): the rest is asked for with tail_options::before.
struct tails_part {
  std::vector<run_tail> tails;
  std::optional<std::string> after; ///< none: no run is left
  bool cut = false;
};

/// Part of `readings_back_all`: machines in id order, each with its
/// readings at or before the moment asked, newest first (a machine with none
/// is left out), and the machine id to go on after.
struct machines_back_part {
  std::vector<std::pair<std::string, std::vector<reading>>> machines;
  std::optional<std::string> after; ///< none: no machine is left
};

/// Part of `studies`: some studies summed up, in name order, and the study
/// to go on after.
struct studies_part {
  std::vector<study_summary> studies;
  std::optional<std::string> after; ///< none: no study is left
};

/// Part of `forwards` as the store keeps it: each record's bytes, sealed,
/// not decoded, of forwards `from`, `from` + 1, ...
struct stored_forward_page {
  std::uint64_t total = 0;
  std::uint64_t from = 0;
  std::vector<std::string> values;
};

/// A kept output's row and its key in the cache (where the next part goes on).
struct cache_entry_row {
  std::string key;
  cache_row row;
};

/// The questions. Every call throws store_error: `missing` for a run, a
/// forward or a study that is not there, `invalid` for a malformed name,
/// `damaged` for bytes that fail their checks, `unreachable` for a served
/// store that did not answer within its bound. `count` is capped at the
/// part limit above.
class answers {
public:
  virtual ~answers() = default;

  /// The runs after `after` (all, from the first, when none), at most
  /// `count`, in key order.
  [[nodiscard]] virtual std::vector<run_row> runs(const std::optional<std::string>& after,
                                                  std::size_t count) = 0;

  /// One run summed up.
  [[nodiscard]] virtual run_row run_summary(std::string_view run) = 0;

  /// The forwards of `run` from `from`, at most `count`, and how many it has.
  [[nodiscard]] virtual forward_page forwards(std::string_view run, std::uint64_t from,
                                              std::size_t count) = 0;

  /// The curve of `name` over forwards `from` on, reading at most `count`
  /// forwards (0: only how it would be read).
  /// With `times`, each point's forward's when_us too (curve_part::when_us):
  /// from the record a scan reads anyway, or one more read per point when
  /// the curve is read from fact blobs.
  [[nodiscard]] virtual curve_part curve(std::string_view run, std::string_view name,
                                         std::uint64_t from, std::size_t count,
                                         bool times = false) = 0;

  /// Every fact forward `n` of `run` was told.
  [[nodiscard]] virtual std::vector<fact> facts(std::string_view run, std::uint64_t n) = 0;

  /// The nodes' tally of forwards `from` on, at most `count` of them.
  [[nodiscard]] virtual nodes_part nodes(std::string_view run, std::uint64_t from,
                                         std::size_t count) = 0;

  /// The hosts' tally of forwards `from` on, at most `count` of them.
  [[nodiscard]] virtual hosts_part hosts(std::string_view run, std::uint64_t from,
                                         std::size_t count) = 0;

  /// The tails of runs after `after` (from the first when none), as
  /// soma::tails(s, options) reads them, at most `count` tails.
  [[nodiscard]] virtual tails_part tails(const tail_options& options,
                                         const std::optional<std::string>& after,
                                         std::size_t count) = 0;

  /// Machines' latest readings, by id, after `after`, at most `count`.
  [[nodiscard]] virtual std::vector<std::pair<std::string, reading>>
  standing(const std::optional<std::string>& after, std::size_t count) = 0;

  /// Readings of machine `id`, oldest first, written after `after_us` (all
  /// when none), at most `count`.
  [[nodiscard]] virtual std::vector<reading> readings(const std::string& id,
                                                      std::optional<std::int64_t> after_us,
                                                      std::size_t count) = 0;

  /// Readings of machine `id` written at or before `at_us`, newest first, at
  /// most `count`.
  [[nodiscard]] virtual std::vector<reading> readings_back(const std::string& id,
                                                           std::int64_t at_us,
                                                           std::size_t count) = 0;

  /// For every machine after `after` (from the first when none), its
  /// readings written at or before `at_us`, newest first, at most
  /// `per_machine` each (capped at back_per_machine_cap), in one part
  /// bounded by readings_per_back_part readings and bytes_per_back_part
  /// stored bytes: `soma health` reads a fleet so.
  [[nodiscard]] virtual machines_back_part readings_back_all(std::int64_t at_us,
                                                             std::size_t per_machine,
                                                             const std::optional<std::string>& after) = 0;

  /// The studies after `after` (from the first when none), summed up, in
  /// parts of at most studies_per_part studies and about
  /// trials_per_studies_part trials summed.
  [[nodiscard]] virtual studies_part studies(const std::optional<std::string>& after) = 0;

  /// The trials of `study` numbered `from` on, at most `count`.
  [[nodiscard]] virtual std::vector<trial_row> trials(std::string_view study, std::uint64_t from,
                                                      std::size_t count) = 0;

  /// The study itself.
  [[nodiscard]] virtual study_row study(std::string_view name) = 0;

  /// Kept outputs (only `node`'s when given) after the key `after`, at
  /// most `count`.
  [[nodiscard]] virtual std::vector<cache_entry_row>
  cache_entries(const std::optional<std::string>& node, const std::optional<std::string>& after,
                std::size_t count) = 0;

  /// soma::check, done where the store is (one scan of it all), telling
  /// `progress` (none: nothing) how far it is.
  [[nodiscard]] virtual check_report check(const check_progress& progress) = 0;

  /// The store's last committed transaction: whether anything was written
  /// since a follower last looked.
  [[nodiscard]] virtual std::uint64_t version() = 0;

  /// forwards(), as the store keeps them, where these answers are the
  /// store's own (none elsewhere): what a served store's server sends, so
  /// that its client checks the bytes on the disk, and the server neither
  /// decodes nor encodes them again.
  [[nodiscard]] virtual std::optional<stored_forward_page>
  stored_forwards(std::string_view /*run*/, std::uint64_t /*from*/, std::size_t /*count*/) {
    return std::nullopt;
  }
};

} // namespace soma::detail

SOMA_API_END
