// soma live's loop: the terminal in raw mode, a frame redrawn in place on
// every interval, q or Ctrl-C to quit, and the terminal as it was after.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "live_view.hpp"
#include "stop_signals.hpp"

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

std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 80;
}

// Whether a key asks to quit: q, Q, Ctrl-C (raw mode makes it a key), Ctrl-D.
bool quit_key(char c) {
  return c == 'q' || c == 'Q' || c == 3 || c == 4;
}

// The frames of one view: the run read on every frame, its opinions judged
// at most once a second (a judgement reads every run's tail, about 35 ms on
// a store of 100 long runs; a frame comes every 200 ms).
class viewer {
public:
  viewer(const store& s, const invocation& inv) : s_(s), inv_(inv) {}

  std::vector<std::string> frame(std::size_t width) {
    auto v = read_view(s_, inv_.run, inv_.fact, width);
    auto now = std::chrono::steady_clock::now();
    if (v.found && (!judged_ || now - *judged_ >= std::chrono::seconds(1))) {
      opinions_ = opinion_lines(s_, inv_.run);
      judged_ = now;
    }
    v.opinions = opinions_;
    return render(v, width);
  }

private:
  const store& s_;
  const invocation& inv_;
  std::vector<std::string> opinions_;
  std::optional<std::chrono::steady_clock::time_point> judged_;
};

} // namespace

bool wait_for_store(const invocation& inv, std::ostream& err) {
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
  pollfd stop{stop_fd(), POLLIN, 0};
  while (stop_signal() == 0) {
    if (made())
      return true;
    ::poll(&stop, 1, static_cast<int>(std::max<std::uint64_t>(inv.interval_ms, 50)));
  }
  return false;
}

void watch(const store& s, const invocation& inv, std::ostream& out) {
  viewer view{s, inv};
  if (inv.once) {
    for (auto& line : view.frame(terminal_width()))
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
      for (auto& line : view.frame(80))
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
  while (stop_signal() == 0) {
    auto width = terminal_width();
    std::string frame = "\x1b[H";
    for (auto& line : view.frame(width))
      frame += line + "\x1b[K\r\n";
    frame += "\x1b[J";
    out << frame << std::flush;
    // A key, a stop signal, or the next frame's time, whichever is first.
    pollfd waits[2] = {{stop_fd(), POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    auto& key = waits[1];
    int ready = ::poll(waits, stdin_open ? 2 : 1, static_cast<int>(inv.interval_ms));
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
