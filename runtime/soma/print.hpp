#pragma once

/// @file
/// soma::print: a watcher that writes each fact as one JSON object per line.

#include <cstdio>

#include "soma/export.hpp"
#include "soma/fact.hpp"

SOMA_API_BEGIN

namespace soma {

/// A watcher writing every fact it is told as one line of JSON (see
/// soma::to_json) and flushing it, so a pipe reader sees each fact as it
/// happens. Lines never interleave: each is written with one locked write.
/// The printer does not own the stream; it must outlive the printer's use.
class printer {
public:
  /// Writes to standard output.
  constexpr printer() noexcept = default;

  /// Writes to `out`.
  constexpr explicit printer(std::FILE* out) noexcept : out_(out) {}

  void operator()(const fact& x) const;

private:
  std::FILE* out_ = nullptr; // nullptr: stdout, looked up at each call
};

/// Writes facts to standard output, one JSON object per line:
/// `g.forward(x, {.watching = soma::print})`.
inline constexpr printer print{};

} // namespace soma

SOMA_API_END
