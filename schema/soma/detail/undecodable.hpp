#pragma once

/// @file
/// soma::detail::undecodable: bytes that are not the message they were read
/// as (schema/soma/detail/capnp.hpp turns Cap'n Proto's errors into it).

#include <stdexcept>

namespace soma::detail {

/// what() says why, in Cap'n Proto's words or ours; callers add whose bytes
/// they were. Not exported: thrown and caught by type inside libsoma.
class undecodable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace soma::detail
