#include "soma/store/run_status.hpp"

#include "soma/store/detail/utc.hpp"
#include "soma/store/detail/run_standing.hpp"

#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>

#include <unistd.h>

namespace soma {

std::string_view to_string(run_status s) noexcept {
  switch (s) {
    case run_status::running: return "running";
    case run_status::finished: return "finished";
    case run_status::died: return "died";
    default: return "unknown";
  }
}

std::ostream& operator<<(std::ostream& out, run_status s) { return out << to_string(s); }

std::optional<run_status> run_status_named(std::string_view word) noexcept {
  for (auto s : {run_status::running, run_status::finished, run_status::died, run_status::unknown})
    if (to_string(s) == word)
      return s;
  return std::nullopt;
}

namespace detail {

namespace {

std::string first_line(const char* path) {
  std::ifstream in{path};
  std::string line;
  std::getline(in, line);
  return line;
}

std::string hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0)
    return "unknown";
  return name;
}

// When process `pid` started, in clock ticks after boot (field 22 of
// /proc/PID/stat, counted after the command's closing parenthesis, which
// may itself hold spaces and parentheses); nullopt when it is not there.
std::optional<std::uint64_t> started_of(std::uint32_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/stat"};
  if (!in)
    return std::nullopt; // no such process
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = all.rfind(')');
  if (close == std::string::npos)
    return std::nullopt;
  std::istringstream rest{all.substr(close + 1)};
  std::string field;
  // Fields 3 (state) to 22 (starttime): the 20th after the parenthesis.
  for (int i = 0; i < 20; ++i)
    if (!(rest >> field))
      return std::nullopt;
  try {
    return std::stoull(field);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}


} // namespace

const run_writer& this_writer() {
  static const run_writer self = [] {
    auto pid = static_cast<std::uint32_t>(::getpid());
    return run_writer{hostname(), first_line("/proc/sys/kernel/random/boot_id"), pid,
                      started_of(pid).value_or(0), {}};
  }();
  return self;
}

run_writer writer_for(std::string client) {
  auto w = this_writer();
  w.client = std::move(client);
  return w;
}

run_standing standing_of(const run_meta& meta) {
  auto* m = &meta;
  if (m->ended_us)
    return {run_status::finished, "its recorder closed it at " + utc(*m->ended_us)};
  if (m->dropped_us)
    return {run_status::died, "the served store's server saw its client"
                                + (m->writer ? " " + m->writer->client : std::string{})
                                + " go without closing it at " + utc(*m->dropped_us)};
  if (!m->writer)
    return {run_status::unknown, "not closed, and written by a soma that did not say which "
                                 "process wrote it"};
  auto& w = *m->writer;
  auto& self = this_writer();
  auto who = "its writer, pid " + std::to_string(w.pid)
             + (w.client.empty() ? std::string{} : " (a served store's server, writing for "
                                                     + w.client + ")");
  if (w.boot.empty() || w.boot != self.boot) {
    if (w.host == self.host && !w.boot.empty() && !self.boot.empty())
      return {run_status::died, who + " on this machine, is gone: the machine started again since"};
    return {run_status::unknown, "not closed; " + who + " ran on " + w.host
                                   + ", which is not this machine, so nothing here can tell "
                                     "whether it still writes"};
  }
  auto started = started_of(w.pid);
  if (started && (w.started == 0 || *started == w.started))
    return {run_status::running, who + " on this machine, lives"};
  return {run_status::died, who + " on this machine, is gone"};
}

} // namespace detail

} // namespace soma
