#include "soma/forward_error.hpp"

#include "soma/error.hpp"

namespace soma {

forward_error::forward_error(std::string node, std::string error)
  : std::runtime_error(describe_failure(node, error)),
    node_(std::move(node)),
    error_(std::move(error)) {
}

} // namespace soma
