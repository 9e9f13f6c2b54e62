#pragma once

/// @file
/// The figures a user of soma includes, the library soma::draw's:
/// progress, spent, machines, a study and a graph's declaration as SVG and
/// PNG (docs/figures.md), and soma::live, the watcher that draws progress
/// while a run goes. soma/soma.hpp leaves them out, so a program that only
/// runs graphs neither compiles nor links them.

#include "soma/draw/bars.hpp"
#include "soma/draw/chart.hpp"
#include "soma/draw/declaration.hpp"
#include "soma/draw/figure.hpp"
#include "soma/draw/framing.hpp"
#include "soma/draw/machines.hpp"
#include "soma/draw/number.hpp"
#include "soma/draw/progress.hpp"
#include "soma/draw/spent.hpp"
#include "soma/draw/study.hpp"
#include "soma/draw/tally.hpp"
#include "soma/live.hpp"
