#include "plot.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "soma/draw/graph.hpp"
#include "soma/draw/machines.hpp"
#include "soma/draw/progress.hpp"
#include "soma/draw/spent.hpp"
#include "soma/draw/study.hpp"
#include "usage_error.hpp"

namespace soma::cli {

void plot(const store& s, const invocation& inv, std::ostream& out) {
  auto figure = [&] {
    try {
      switch (inv.what) {
        case command::plot_spent: return draw::spent(s, inv.run, inv.last);
        case command::plot_machines: return draw::machines(s, inv.run);
        case command::plot_study: return draw::study(s, inv.study, inv.fact, inv.result);
        default: return draw::progress(s, inv.run, inv.fact, {.window = inv.window});
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
  pid_t child = ::fork();
  if (child < 0)
    throw usage_error(std::string{"cannot start '"} + inv.program[0] + "': " + std::strerror(errno));
  if (child == 0) {
    ::setenv(draw::draw_graph_variable, drawn.c_str(), 1);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "soma: cannot run '%s': %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
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
