#include "lifeline.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "log.hpp"
#include "signals.hpp"
#include "soma/remote/child.hpp"

namespace soma::node_cli {

bool watch_lifeline() {
  const char* given = std::getenv(soma::detail::lifeline_variable);
  if (!given)
    return true;
  std::string_view text{given};
  int fd = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), fd);
  if (ec != std::errc{} || end != text.data() + text.size() || fd < 0 || fcntl(fd, F_GETFD) < 0) {
    std::fprintf(stderr, "soma-node: $%s is '%s', not an open descriptor: it is set by "
                         "soma::worker::spawn; unset it to start soma-node by hand\n",
                 soma::detail::lifeline_variable, given);
    return false;
  }
  ::unsetenv(soma::detail::lifeline_variable);
  // worker::spawn's is a pipe. Anything else (a launcher between it and
  // soma-node that gave soma-node /dev/null or a terminal, and passed the
  // variable on) is not its lifeline, and is left alone.
  struct stat what {};
  if (fstat(fd, &what) != 0 || !S_ISFIFO(what.st_mode)) {
    say("no lifeline: $" + std::string{soma::detail::lifeline_variable} + " names descriptor "
        + std::to_string(fd) + ", which is not a pipe");
    return true;
  }
  // Blocked in read() until the other end closes; never joined: the process
  // ends with it waiting.
  std::thread{[fd] {
    char ignored[64];
    for (;;) {
      auto n = ::read(fd, ignored, sizeof ignored);
      if (n > 0 || (n < 0 && errno == EINTR))
        continue;
      break;
    }
    lifeline_closed();
  }}.detach();
  return true;
}

} // namespace soma::node_cli
