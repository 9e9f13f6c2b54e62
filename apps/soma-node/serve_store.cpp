#include "serve_store.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include "log.hpp"

namespace soma::node_cli {

namespace {

// Each session of the served store is a socket: raises the soft limit of
// open files to the hard one, and says so when even that is below what
// --store-sessions needs (beside the store's own files and a worker's).
void raise_open_files(std::size_t sessions) {
  constexpr rlim_t beside = 256;
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0)
    return;
  auto wanted = static_cast<rlim_t>(sessions) + beside;
  if (lim.rlim_cur < lim.rlim_max && lim.rlim_cur < wanted) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, lim.rlim_max);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0)
      lim = raised;
  }
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < wanted)
    say("--serve-store: this process may open " + std::to_string(lim.rlim_cur)
        + " files (ulimit -n, its hard limit " + std::to_string(lim.rlim_max) + "), fewer than "
        + std::to_string(wanted) + " for --store-sessions " + std::to_string(sessions)
        + " and its own: clients past it are refused at connect; raise the hard limit "
          "(limits.conf, LimitNOFILE=) or lower --store-sessions");
}

} // namespace

bool open_served_store(const options& opt, std::optional<soma::store>& served) {
  if (opt.serve_store.empty())
    return true;
  raise_open_files(opt.store_sessions);
  std::error_code ec;
  if (!std::filesystem::exists(opt.serve_store, ec))
    say("--serve-store: there is no store in '" + opt.serve_store
        + "' yet: serving a new, empty one there");
  try {
    store_options o;
    o.expendable_readings = true;
    served.emplace(opt.serve_store, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soma-node: --serve-store: %s\n", e.what());
    return false;
  }
  return true;
}

} // namespace soma::node_cli
