#include "soma/remote/worker.hpp"

#include <unistd.h>

#include <stdexcept>

#include "soma/remote/address.hpp"
#include "soma/remote/child.hpp"
#include "soma/remote/worker_link.hpp"

namespace soma {

worker worker::spawn(caf::actor_system& sys, std::vector<std::string> command, soma::mode how,
                     std::optional<soma::tls> tls, std::chrono::milliseconds within) {
  std::string host = "127.0.0.1";
  for (std::size_t i = 0; i + 1 < command.size(); ++i)
    if (command[i] == "--listen")
      host = parse_address(command[i + 1], "--listen").host;
  auto child = detail::start_child(command);
  std::uint16_t port = 0;
  try {
    port = detail::first_line_port(child.pid, child.stdout_fd, command[0], within);
  } catch (...) {
    close(child.stdout_fd);
    close(child.lifeline);
    throw;
  }
  close(child.stdout_fd);
  auto link = std::make_shared<detail::worker_link>(sys, soma::address{host, port}, how,
                                                    std::move(tls), within, child.pid,
                                                    child.lifeline);
  link->open(); // on failure the link's destructor stops the child
  return worker{std::move(link)};
}

worker worker::connect(caf::actor_system& sys, std::string_view address, soma::mode how,
                       std::optional<soma::tls> tls, std::chrono::milliseconds within) {
  soma::address where;
  try {
    where = parse_address(address, "worker::connect");
  } catch (const std::invalid_argument& e) {
    throw worker_error(e.what());
  }
  auto link = std::make_shared<detail::worker_link>(sys, std::move(where), how, std::move(tls),
                                                    within, 0);
  link->open();
  return worker{std::move(link)};
}

std::string worker::address() const { return link_->where().str(); }

pid_t worker::pid() const noexcept { return link_->child(); }

soma::mode worker::how() const noexcept { return link_->how(); }

} // namespace soma
