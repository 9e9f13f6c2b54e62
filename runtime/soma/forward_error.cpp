#include "soma/forward_error.hpp"

namespace soma {

namespace {

std::string describe(const std::string& node, const std::string& error) {
  if (node.empty())
    return "forward failed: " + error;
  return "node '" + node + "' failed: " + error;
}

} // namespace

forward_error::forward_error(std::string node, std::string error)
  : std::runtime_error(describe(node, error)),
    node_(std::move(node)),
    error_(std::move(error)) {
}

} // namespace soma
