#pragma once

/// @file
/// soma::draw::study: a study's figure (`soma plot study STUDY`): the result
/// of each trial, and every trial's curve overlaid.

#include <string>
#include <string_view>

#include "soma/draw/figure.hpp"
#include "soma/draw/framing.hpp"
#include "soma/export.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma::draw {

/// The figure of study `name` in `s`: above, result `result` of each done
/// trial (empty: the first number in the first done trial's result) against
/// its parameter `by` (on a log axis when its values span more than 2
/// decades, all above 0), or, with `by` empty, against the study's only
/// parameter when every trial has just one, else (or with `by` "trial")
/// against its number; the
/// best trial (the lowest result) labelled with its parameters; below, fact `fact` over each trial's run, thin, one line
/// per trial that recorded it, the trial with the lowest result bold. The
/// subtitle says how many trials are drawn and why the others are not
/// (waiting, claimed, broke, or no such result). Costs soma::trials plus a
/// curve per trial. `frame` sets the size and title. Throws no_study_error,
/// and std::invalid_argument when no trial has a finite result `result` to
/// draw (and a number for `by`), no trial has a parameter `by` (naming
/// those there are), or the size is out of bounds.
[[nodiscard]] figure study(const store& s, std::string_view name, std::string_view fact = "loss",
                           std::string result = {}, const framing& frame = {},
                           std::string by = {});

} // namespace soma::draw

SOMA_API_END
