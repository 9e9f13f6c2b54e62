#pragma once

/// @file
/// Each session's own catalog binding node types to definitions, among the
/// node libraries its worker was started with and those clients shipped
/// (soma/worker/worker_state.hpp).

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "soma/detail/libraries.hpp"
#include "soma/worker/worker_state.hpp"

namespace soma::serve {

/// One session's catalog: which definition each node type is bound to, and
/// the node instances made from them. Used by one session actor at a time.
class session_catalog {
public:
  session_catalog(worker_state& worker, bool network) : worker_(worker), network_(network) {}

  /// Why a node cannot run here, when it cannot.
  struct refusal {
    enum kind { none, unknown, needs_code, conflict } what = none;
    std::string error;
  };

  /// Binds `type` to `definition` for this session, or says why not.
  refusal bind(const std::string& type, const std::string& definition,
               const std::string& client_library);

  /// Adds a shipped library to what this session may bind.
  void add(std::shared_ptr<const detail::node_library> lib);

  /// The instance running graph node `name` of `type` made from `state`
  /// (its encoded fields), made the first time (bound first). Throws
  /// detail::value_error when the fields do not decode.
  detail::remote_node& instance(const std::string& type, const std::string& name,
                                const std::string& state);

private:
  worker_state& worker_;
  bool network_;
  std::vector<std::shared_ptr<const detail::node_library>> shipped_;
  std::map<std::string, std::shared_ptr<const detail::node_library>> bound_; // type -> library
  /// (name, type, state) -> the node made from them.
  std::map<std::tuple<std::string, std::string, std::string>, std::unique_ptr<detail::remote_node>>
    instances_;
};

} // namespace soma::serve
