#pragma once

/// @file
/// soma::trace_of: a run's forwards as a Chrome trace (the Trace Event
/// Format's JSON object: `{"traceEvents":[...],"displayTimeUnit":"ms",
/// "otherData":{...}}`), for chrome://tracing or ui.perfetto.dev.
///
/// The layout: one timeline per host, whatever the number of forwards.
/// Process 1, "forwards", has the forwards' spans on its track "forward"
/// (each 0 .. took_us of its forward, named "forward N", its state and time
/// as args, and `broke` as an instant "broke at NODE"), and last the track
/// "told" (the facts users told, as instants, their fields as args).
/// Process 2 is "here (the client)", process 3 "critical path" (each
/// forward's critical path, below), and each worker host is a process of
/// its own after them ("worker HOST"), in the order their facts come. A
/// process has as many lanes ("here", "here · 2", ...) as it ran spans at
/// once over the whole trace: a span goes to the first lane whose last span
/// ended by its start, so the spans of one track never partly overlap.
///
/// | fact                 | event                                                  |
/// | -------------------- | ------------------------------------------------------ |
/// | `ran`, `failed`, `kept` | a span (ph X) named after the node, cat the fact, its fields as args |
/// | `recalled`           | an instant "recalled NODE" on its host's first lane    |
/// | `left`               | a span "trip to HOST" on the client's lanes, and a flow (cat "trip") from it to the first of the trip's spans on the worker |
/// | `items`              | an instant "items NODE" on the first lane of "here" (an instant, not a counter: it carries no time of its own) |
/// | `finished`, `broke`  | the forward's span on "forward"; `broke` also its instant |
/// | `machine`            | nothing                                                |
/// | any other (told)     | an instant on "told"                                   |
///
/// Time. A forward is placed where its recorder saw it begin (its record's
/// `when_us`), counted from the first traced forward's, and its facts
/// exactly within it (ts = when_us - first when_us + began_us); a store
/// written before records kept microseconds places forwards at their whole
/// second. `items` and
/// told facts have no time: each is put where the facts before it ended (a
/// fact told after the forward ended sits at its end). A worker stamps its
/// facts on its own clock, from when its session took the slice: its spans
/// are put on the client's clock by the worker's offset, estimated from the
/// trips (soma/store/critical.hpp), where its wire out ends, and cut to stay
/// inside the trip (their args keep the times told). A trip from a soma
/// whose worker sent no stamps is taken as symmetric. A worker's span whose
/// trip never came (a forward that broke on the way back) stays at its own
/// began_us. Each forward's critical path is drawn on process 3, as spans
/// "KIND HOST[ NODE]" ("wire out w2", "work w1 embed"; cat "critical") that
/// cover the forward end to end. ts and dur are µs; otherData's "clock" and "workers" say the
/// clocks in words (each worker's estimated offset and bound, µs), "run",
/// "forwards" and "asked" what is in, "cut" why not all.
///
/// Perfetto's TrackEvent protobuf is not written: Debian packages no
/// Perfetto protos, and the JSON opens in the same viewers.
///
/// The output is deterministic: the same store gives the same bytes.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "soma/export.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// Which forwards of a run go into a trace, and how big it may get.
struct trace_options {
  std::optional<std::uint64_t> forward; ///< only this forward
  std::optional<std::size_t> last;      ///< only the run's last N (neither: the last 100)
  /// The cap on the document's size: forwards are added whole, the oldest
  /// asked first, while the next one keeps the document within it. (A cap
  /// below the size of a trace with no forward, a few hundred bytes, yields
  /// that trace, the one document ever larger than the cap.)
  std::size_t max_bytes = 50u << 20;
};

/// A written trace.
struct trace {
  std::string json;          ///< the whole document, UTF-8
  std::size_t forwards = 0;  ///< forwards written
  std::size_t events = 0;    ///< objects in traceEvents, metadata included
  bool cut = false;          ///< max_bytes stopped it before all forwards asked were in
  /// When cut: for a person, how many of how many forwards are in, the cap,
  /// and how to get the rest (--forward N, --last N, --max-bytes). Also in
  /// the document, as otherData's "cut".
  std::string note;
};

/// The trace of the forwards of `run` that `o` asks for. One read of the
/// run's last forwards and their fact blobs (soma::tails); for `o.forward`,
/// one fetch and a scan of the run's records (soma::facts, soma::forwards).
/// Throws store_error as those readers do: an unknown run or forward, damaged
/// bytes, a served store that cannot be reached (the message names which).
/// Throws std::invalid_argument when `o` sets both forward and last.
[[nodiscard]] trace trace_of(const store& s, std::string_view run, const trace_options& o = {});

} // namespace soma

SOMA_API_END
