#pragma once

/// @file
/// Everything a user of soma includes to build graphs, run them, record them
/// and read them back. The figures (soma::draw, soma::live) are the library
/// soma::draw's: `#include <soma/draw.hpp>`. Names alone, for a header of
/// yours: `#include <soma/fwd.hpp>`.

#include "soma/atoms.hpp"
#include "soma/chain.hpp"
#include "soma/context.hpp"
#include "soma/error.hpp"
#include "soma/fact.hpp"
#include "soma/forward_error.hpp"
#include "soma/graph.hpp"
#include "soma/node.hpp"
#include "soma/print.hpp"
#include "soma/recorder.hpp"
#include "soma/remote/broker.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/remote/worker.hpp"
#include "soma/store/deleting.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/run_query.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/trials.hpp"
#include "soma/sweep.hpp"
#include "soma/system_config.hpp"
#include "soma/trials/claimant.hpp"
#include "soma/vocabulary.hpp"
#include "soma/watching.hpp"
