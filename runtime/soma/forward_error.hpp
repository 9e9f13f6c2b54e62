#pragma once

/// @file
/// The exceptions soma::typed_graph::forward throws.

#include <stdexcept>
#include <string>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// A forward broke: a node threw, or the forward could not run at all.
/// `node()` names the node (empty when no node was to blame) and `error()`
/// is what went wrong, as the node said it; `what()` says both.
class forward_error : public std::runtime_error {
public:
  forward_error(std::string node, std::string error);

  [[nodiscard]] const std::string& node() const noexcept { return node_; }

  [[nodiscard]] const std::string& error() const noexcept { return error_; }

private:
  std::string node_;
  std::string error_;
};

/// A callable watcher threw while it was told a fact. The forward itself ran
/// to its end and every other watcher was told everything; the watcher that
/// threw was told nothing more of that forward.
class watcher_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace soma

SOMA_API_END
