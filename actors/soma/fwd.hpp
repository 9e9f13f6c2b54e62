#pragma once

/// @file
/// soma's public types, declared and not defined: what a header of yours
/// includes to name them (a pointer, a reference, a parameter) without
/// paying for their definitions, as caf/fwd.hpp does for CAF's. Each says
/// the header that defines it; include that one to use it.

#include <cstdint>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

// schema: what travels and what is kept
struct fact;                   // soma/fact.hpp
class scalar;                  // soma/scalar.hpp
class values;                  // soma/values.hpp
struct record;                 // soma/record.hpp
struct execution;              // soma/record.hpp
struct value_range;            // soma/record.hpp
struct reading;                // soma/reading.hpp
enum class outcome : std::uint8_t;    // soma/outcome.hpp
enum class error_code : std::uint8_t; // soma/error.hpp

// store: a store and what its readers answer
class store;                   // soma/store/store.hpp
struct store_options;          // soma/store/store.hpp
class store_error;             // soma/store/store.hpp
class no_run_error;            // soma/store/store.hpp
struct run_row;                // soma/store/readers.hpp
struct node_row;               // soma/store/readers.hpp
struct forward_page;           // soma/store/readers.hpp
struct curve_columns;          // soma/store/readers.hpp
struct run_query;              // soma/store/run_query.hpp
struct fleet_row;              // soma/store/fleet.hpp
struct cache_row;              // soma/store/cache.hpp
struct critical_report;        // soma/store/critical.hpp
struct trial_row;              // soma/trials/rows.hpp
struct study_summary;          // soma/store/trials.hpp

// runtime: what a user writes
class context;                 // soma/context.hpp
class printer;                 // soma/print.hpp

// actors: graphs, recorders, workers
template <class In, class Out>
class typed_graph;             // soma/graph.hpp
struct node_declaration;       // soma/node_declaration.hpp
struct forward_options;        // soma/graph.hpp
class recorder;                // soma/recorder.hpp
struct recorder_options;       // soma/recorder.hpp
enum class existing_run;       // soma/recorder.hpp
class system_config;           // soma/system_config.hpp
class broker;                  // soma/remote/broker.hpp
class worker;                  // soma/remote/worker.hpp
class claimant;                // soma/trials/claimant.hpp

// draw (the library soma::draw, soma/draw.hpp): figures and the live view
class live;                    // soma/live.hpp
struct live_options;           // soma/live.hpp

} // namespace soma

namespace soma::draw {
class figure;                  // soma/draw/figure.hpp
} // namespace soma::draw

SOMA_API_END
