#include "commands/live.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <ctime>
#include <limits>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "count.hpp"
#include "live_view.hpp"
#include "stop_signals.hpp"
#include "usage_error.hpp"

namespace soma::cli {

namespace {

// The terminal in raw mode (no echo, keys one at a time, Ctrl-C a key) on
// the alternate screen with the cursor hidden, for as long as it lives;
// everything is put back when it goes, however the loop ends.
class raw_terminal {
public:
  raw_terminal() {
    if (!::isatty(STDIN_FILENO) || ::tcgetattr(STDIN_FILENO, &saved_) != 0)
      return;
    termios raw = saved_;
    raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO | ISIG | IEXTEN));
    raw.c_iflag &= static_cast<tcflag_t>(~(IXON | ICRNL));
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    active_ = ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0;
  }
  ~raw_terminal() {
    if (active_)
      ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_);
  }
  raw_terminal(const raw_terminal&) = delete;
  raw_terminal& operator=(const raw_terminal&) = delete;

private:
  termios saved_{};
  bool active_ = false;
};

// The terminal's columns and rows; 80 and no limit when it says none.
struct terminal_size {
  std::size_t width = 80;
  std::size_t height = std::numeric_limits<std::size_t>::max();
};

terminal_size terminal_size_now() {
  terminal_size size;
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
    if (ws.ws_col > 0)
      size.width = ws.ws_col;
    if (ws.ws_row > 0)
      size.height = ws.ws_row;
  }
  return size;
}

// SIGWINCH (the terminal was resized) as a descriptor that becomes readable,
// caught once for the rest of the process, as the stop signals are (a
// resize's default is to be ignored, so nothing needs putting back).
int resize_pipe[2] = {-1, -1};

extern "C" void on_resize(int) {
  auto saved = errno;
  unsigned char byte = 0;
  (void)!::write(resize_pipe[1], &byte, 1); // non-blocking: a full pipe drops it
  errno = saved;
}

// The descriptor to poll for resizes, or -1 when no pipe could be made (the
// view then sees a new size at its next frame).
int catch_resize() {
  if (resize_pipe[0] < 0 && ::pipe2(resize_pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
    struct sigaction sa {};
    sa.sa_handler = on_resize;
    ::sigemptyset(&sa.sa_mask);
    ::sigaction(SIGWINCH, &sa, nullptr);
  }
  return resize_pipe[0];
}

// Reads what resizes wrote, so that the next poll waits again.
void drain(int fd) {
  char buf[64];
  while (::read(fd, buf, sizeof buf) > 0) {
  }
}

// Whether a key asks to quit: q, Q, Ctrl-C (raw mode makes it a key), Ctrl-D.
bool quit_key(char c) {
  return c == 'q' || c == 'Q' || c == 3 || c == 4;
}

// The frames of one view: the run followed from frame to frame (only what
// is new is read), its opinions judged at most once a second (a judgement
// reads every run's tail, about 35 ms on a store of 100 long runs; a frame
// comes every 200 ms).
class viewer {
public:
  viewer(const store& s, const invocation& inv)
    : s_(s), inv_(inv), follower_(inv.run, inv.fact, static_cast<std::int64_t>(inv.quiet_after_s)) {}

  std::vector<std::string> frame(terminal_size size) {
    auto v = follower_.read(s_, static_cast<std::int64_t>(std::time(nullptr)));
    auto now = std::chrono::steady_clock::now();
    if (v.found && (!judged_ || now - *judged_ >= std::chrono::seconds(1))) {
      opinions_ = opinion_lines(s_, inv_.run);
      try {
        machines_ = machine_states(s_, follower_.machines(), reader_now_us());
      } catch (const store_error&) {
        // A damaged reading elsewhere, a served store out of reach for a
        // moment: the last states stay, and the view goes on (the opinions
        // line says what is wrong with the store).
      }
      judged_ = now;
    }
    v.opinions = opinions_;
    v.machines = machines_;
    return render(v, size.width, size.height);
  }

private:
  const store& s_;
  const invocation& inv_;
  run_follower follower_;
  std::vector<std::string> opinions_;
  std::vector<std::pair<std::string, machine_state>> machines_;
  std::optional<std::chrono::steady_clock::time_point> judged_;
};

} // namespace

finish add_live(command_line& line) {
  auto& inv = line.inv;
  auto* live = line.app.add_subcommand(
    "live", "a view of RUN in the terminal, redrawn as another process records; q quits");
  live->add_option("RUN,--run", inv.run, "the run")->required();
  live->add_option("--fact", inv.fact, "the series to show (default loss)")->option_text("NAME");
  struct texts {
    std::string interval, quiet_after;
  };
  auto given = std::make_shared<texts>();
  auto* interval = live->add_option("--interval", given->interval,
                                    "how often to read the store, in ms (default 200)")
                     ->option_text("MS");
  live->add_flag("--once", inv.once, "print one frame and exit");
  live->add_flag("--wait", inv.wait,
                 "wait for RUN to be recorded when the store does not hold it yet (without it, "
                 "such a RUN is an error naming the nearest runs)");
  auto* quiet_after = live->add_option("--quiet-after", given->quiet_after,
                                       "say so once no forward came for S seconds, or 3 times the "
                                       "recent mean gap when longer (default 5)")
                        ->option_text("S");
  common_options(*live, line, prints::no_rows);
  return finish_as(live, command::live, [interval, quiet_after, given](invocation& inv) {
    if (inv.json || inv.csv)
      throw usage_error("`soma live` draws for a person, and " + script_flag(inv)
                        + " has nothing to print there; "
                        "for a script, read `soma --json forwards RUN` or `soma --json curve RUN "
                        "NAME` as often as it needs");
    if (inv.once && inv.wait)
      throw usage_error("--once looks once and --wait waits for the run: give one");
    if (interval->count() > 0)
      inv.interval_ms = parse_count(given->interval, "MS of `soma live --interval MS`");
    if (quiet_after->count() > 0)
      inv.quiet_after_s = parse_count(given->quiet_after,
                                      "S of `soma live --quiet-after S` (whole seconds)");
  });
}

bool wait_for_store(invocation& inv, std::ostream& err) {
  namespace fs = std::filesystem;
  if (inv.once || inv.store.starts_with("soma://"))
    return true;
  // A store is there once its data file holds LMDB's two meta pages: a
  // recorder making it has then committed its first transaction.
  auto made = [&] {
    std::error_code ec;
    auto size = fs::file_size(fs::path{inv.store} / "data.mdb", ec);
    return !ec && size >= 8192;
  };
  if (made())
    return true;
  catch_stop_signals(); // before the line that says Ctrl-C stops
  err << "soma live: no store at '" << inv.store << "' yet; waiting for a recorder to make it "
      << "(Ctrl-C stops)" << std::endl;
  inv.wait = true; // the recorder that makes it writes the run a moment later
  pollfd stop{stop_fd(), POLLIN, 0};
  while (stop_signal() == 0) {
    if (made())
      return true;
    ::poll(&stop, 1, static_cast<int>(std::max<std::uint64_t>(inv.interval_ms, 50)));
  }
  return false;
}

void watch(const store& s, const invocation& inv, std::ostream& out) {
  // A run that is not there is an error (naming the nearest runs), not a
  // wait, unless --wait asks for one (or the store itself was waited for).
  if (inv.once || !inv.wait)
    (void) run_summary(s, inv.run);
  // Into a pipe that closes (`soma live | head`): a failed write, and then a
  // quiet end (main.cpp), not death by SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  viewer view{s, inv};
  if (inv.once) {
    for (auto& line : view.frame(terminal_size_now()))
      out << line << '\n';
    return;
  }
  catch_stop_signals();
  if (!::isatty(STDOUT_FILENO)) {
    // Into a pipe or a file: no screen to redraw in place, so each frame
    // follows the last, plain, a blank line between (as `top -b` does),
    // until a signal, or until the reader goes (a failed write).
    pollfd stop{stop_fd(), POLLIN, 0};
    while (stop_signal() == 0) {
      for (auto& line : view.frame({}))
        out << line << '\n';
      out << '\n' << std::flush;
      if (!out)
        return;
      ::poll(&stop, 1, static_cast<int>(inv.interval_ms));
    }
    return;
  }
  raw_terminal raw;
  // The alternate screen keeps what was on the terminal, and gets it back.
  out << "\x1b[?1049h\x1b[?25l" << std::flush;
  struct restore {
    std::ostream& out;
    ~restore() { out << "\x1b[?25h\x1b[?1049l" << std::flush; }
  } restoring{out};
  bool stdin_open = true;
  int resized = catch_resize();
  while (stop_signal() == 0) {
    // Every line ends cleared, but for one that fills the row (clearing
    // there would take its last character); nothing is written past the
    // last row, which would scroll the screen.
    auto size = terminal_size_now();
    auto lines = view.frame(size);
    std::string frame = "\x1b[H";
    for (std::size_t i = 0; i < lines.size(); ++i) {
      frame += lines[i];
      if (text_columns(lines[i]) < size.width)
        frame += "\x1b[K";
      if (i + 1 < lines.size())
        frame += "\r\n";
    }
    if (lines.size() < size.height)
      frame += "\r\n\x1b[J";
    out << frame << std::flush;
    // A key, a resize, a stop signal, or the next frame's time, whichever
    // is first; a resize redraws at once, at the new size.
    pollfd waits[3] = {{stop_fd(), POLLIN, 0}, {resized, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    auto& key = waits[2];
    int ready = ::poll(waits, stdin_open ? 3 : 2, static_cast<int>(inv.interval_ms));
    if (ready > 0 && (waits[1].revents & POLLIN))
      drain(resized);
    if (ready > 0 && stdin_open && (key.revents & (POLLIN | POLLHUP))) {
      char buf[64];
      auto n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n == 0)
        stdin_open = false; // a closed stdin cannot say q; signals still can
      for (ssize_t i = 0; i < n; ++i)
        if (quit_key(buf[i]))
          return;
    }
  }
}

} // namespace soma::cli
