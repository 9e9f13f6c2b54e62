#include "slices.hpp"

#include <cstdio>

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/publish.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/send.hpp>

namespace soma::node_cli {

std::optional<std::vector<std::shared_ptr<const detail::node_library>>>
load_libraries(const options& opt) {
  std::vector<std::shared_ptr<const soma::detail::node_library>> libraries;
  for (auto& path : opt.nodes) {
    try {
      auto lib = soma::detail::load_node_library(path);
      // The same library given twice (or by two paths) is served once.
      bool again = false;
      for (auto& had : libraries)
        again = again || had->definition == lib->definition;
      if (!again)
        libraries.push_back(std::move(lib));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soma-node: --nodes: %s\n", e.what());
      return std::nullopt;
    }
  }
  return libraries;
}

std::optional<std::uint16_t> publish_front(caf::actor_system& sys, const caf::actor& front,
                                           const options& opt, const listening& at) {
  auto& where = at.where;
  auto port = at.tls ? caf::openssl::publish(front, where.port, where.host.c_str(), true)
                     : sys.middleman().publish(front, where.port, where.host.c_str(), true);
  if (!port) {
    std::fprintf(stderr, "soma-node: cannot listen on %s: %s\n", opt.listen.c_str(),
                 sys.render(port.error()).c_str());
    caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
    return std::nullopt;
  }
  std::printf("%u\n", static_cast<unsigned>(*port));
  std::fflush(stdout);
  return *port;
}

std::vector<std::string> served_types(const serve::worker_state& worker) {
  std::vector<std::string> serving;
  for (auto& lib : worker.libraries())
    for (auto& e : *lib->entries)
      serving.push_back(e.type);
  return serving;
}

} // namespace soma::node_cli
