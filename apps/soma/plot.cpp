#include "plot.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <unistd.h>

#include "soma/draw/graph.hpp"
#include "soma/draw/machines.hpp"
#include "soma/draw/progress.hpp"
#include "soma/draw/spent.hpp"
#include "soma/store/readers.hpp"
#include "soma/draw/study.hpp"
#include "usage_error.hpp"

namespace soma::cli {

std::pair<int, int> parse_size(std::string_view text) {
  auto bounds = std::to_string(draw::least_width) + "x" + std::to_string(draw::least_height)
                + " to " + std::to_string(draw::most_width) + "x"
                + std::to_string(draw::most_height);
  auto x = text.find_first_of("xX");
  auto number = [](std::string_view digits) {
    int v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    return ec == std::errc{} && end == digits.data() + digits.size() && !digits.empty() ? v : -1;
  };
  int w = x == std::string_view::npos ? -1 : number(text.substr(0, x));
  int h = x == std::string_view::npos ? -1 : number(text.substr(x + 1));
  if (w < 0 || h < 0)
    throw usage_error("--size WxH is pixels across and down, such as 1280x720, not '"
                      + std::string{text} + "'; sizes run from " + bounds);
  if (w < draw::least_width || w > draw::most_width || h < draw::least_height
      || h > draw::most_height)
    throw usage_error("--size " + std::string{text} + " is out of bounds: a figure is from "
                      + bounds + " pixels (width x height)");
  return {w, h};
}

namespace {

// One figure of every run of inv.runs and fact of inv.facts. A run that is
// not there is an error naming it; a series nobody told is named on the
// figure, as the web page's comparison does.
draw::figure overlaid(const store& s, const invocation& inv, const draw::framing& frame) {
  // A run is named by its params where it has them (lr=0.05), and by its id
  // too where two runs have the same ones.
  std::vector<std::string> labels;
  for (auto& run : inv.runs) {
    auto params = run_summary(s, run).params;
    labels.push_back(params.empty() ? std::string{} : params.text());
  }
  auto same = labels;
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (!same[i].empty() && std::count(same.begin(), same.end(), same[i]) > 1)
      labels[i] += " (" + inv.runs[i] + ")";
  std::vector<draw::compared> series;
  for (std::size_t i = 0; i < inv.runs.size(); ++i)
    for (auto& fact : inv.facts)
      series.push_back({inv.runs[i], curve(s, inv.runs[i], fact), fact, labels[i]}); // empty: named on the figure
  return draw::compare(series, inv.facts.front(), {.window = inv.window, .log_y = inv.log_y, .frame = frame});
}

} // namespace

void plot(const store& s, const invocation& inv, std::ostream& out) {
  draw::framing frame{inv.width, inv.height, inv.title};
  auto figure = [&] {
    try {
      switch (inv.what) {
        case command::plot_spent: return draw::spent(s, inv.run, inv.last, frame);
        case command::plot_machines: return draw::machines(s, inv.run, frame);
        case command::plot_study:
          return draw::study(s, inv.study, inv.fact, inv.result, frame);
        default:
          if (inv.runs.size() > 1 || inv.facts.size() > 1)
            return overlaid(s, inv, frame);
          return draw::progress(s, inv.run, inv.fact,
                                {.window = inv.window, .log_y = inv.log_y, .frame = frame});
      }
    } catch (const std::invalid_argument& e) { // an even window, a value not finite
      throw usage_error(e.what());
    }
  }();
  try {
    figure.save(inv.output);
  } catch (const std::exception& e) {
    throw usage_error(e.what());
  }
  out << "drew " << figure.title() << " to " << inv.output << '\n';
}

void plot_graph(const invocation& inv, std::ostream& out) {
  // The program draws to a file of our own beside the output, so a file
  // already there is not mistaken for one it drew.
  auto ext = std::filesystem::path{inv.output}.extension().string();
  auto drawn = inv.output + ".drawing-" + std::to_string(::getpid()) + ext;
  std::filesystem::remove(drawn);
  std::vector<char*> argv;
  for (auto& a : inv.program)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  // A pipe closed by a successful exec: the child writes into it only why
  // exec failed, so the one error line is the parent's.
  int told[2];
  if (::pipe2(told, O_CLOEXEC) != 0)
    throw usage_error(std::string{"cannot start '"} + inv.program[0] + "': " + std::strerror(errno));
  pid_t child = ::fork();
  if (child < 0) {
    ::close(told[0]);
    ::close(told[1]);
    throw usage_error(std::string{"cannot start '"} + inv.program[0] + "': " + std::strerror(errno));
  }
  if (child == 0) {
    ::close(told[0]);
    ::setenv(draw::draw_graph_variable, drawn.c_str(), 1);
    ::execvp(argv[0], argv.data());
    int why = errno;
    (void) !::write(told[1], &why, sizeof why);
    ::_exit(127);
  }
  ::close(told[1]);
  int why = 0;
  ssize_t got = 0;
  while ((got = ::read(told[0], &why, sizeof why)) < 0 && errno == EINTR) {
  }
  ::close(told[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof why))
    throw usage_error("cannot run '" + inv.program[0] + "': " + std::strerror(why)
                      + "; give the path of a program that draws its graph (docs/figures.md)");
  std::error_code ec;
  bool there = std::filesystem::exists(drawn, ec);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::filesystem::remove(drawn, ec);
    throw usage_error("'" + inv.program[0] + "' failed ("
                      + (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                           : "killed by signal " + std::to_string(WTERMSIG(status)))
                      + "); nothing was drawn");
  }
  if (!there)
    throw usage_error("'" + inv.program[0] + "' ran but drew no graph: a program draws its "
                      "graph for `soma plot graph` by calling "
                      "soma::draw::draw_if_asked(g.declaration()) (apps/examples/drawing_a_graph.cpp)");
  std::filesystem::rename(drawn, inv.output, ec);
  if (ec)
    throw usage_error("cannot write '" + inv.output + "': " + ec.message());
  out << "drew the graph of " << inv.program[0] << " to " << inv.output << '\n';
}

} // namespace soma::cli
