#pragma once

/// @file
/// Everything a user of soma includes.

#include "soma/atoms.hpp"
#include "soma/remote/broker.hpp"
#include "soma/chain.hpp"
#include "soma/claimant.hpp"
#include "soma/context.hpp"
#include "soma/error.hpp"
#include "soma/fact.hpp"
#include "soma/forward_error.hpp"
#include "soma/graph.hpp"
#include "soma/live.hpp"
#include "soma/node.hpp"
#include "soma/print.hpp"
#include "soma/recorder.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/trials.hpp"
#include "soma/sweep.hpp"
#include "soma/system_config.hpp"
#include "soma/vocabulary.hpp"
#include "soma/watching.hpp"
#include "soma/remote/worker.hpp"
