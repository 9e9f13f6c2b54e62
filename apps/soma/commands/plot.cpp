#include "commands/plot.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "count.hpp"
#include "soma/draw/declaration.hpp"
#include "soma/draw/machines.hpp"
#include "soma/draw/progress.hpp"
#include "soma/draw/spent.hpp"
#include "soma/store/readers.hpp"
#include "soma/draw/study.hpp"
#include "usage_error.hpp"

namespace soma::cli {

namespace {

// The figures of `soma plot`, and the texts their options are read into.
struct figures {
  CLI::App* progress;
  CLI::App* spent;
  CLI::App* machines;
  CLI::App* study;
  CLI::App* graph;
  std::string window_text, last_text, size_text;
  CLI::Option* window;
  CLI::Option* last;
  std::vector<CLI::Option*> sizes;

  // The figure the command line named, if any.
  [[nodiscard]] std::optional<command> named() const {
    if (progress->parsed())
      return command::plot_progress;
    if (spent->parsed())
      return command::plot_spent;
    if (machines->parsed())
      return command::plot_machines;
    if (study->parsed())
      return command::plot_study;
    if (graph->parsed())
      return command::plot_graph;
    return std::nullopt;
  }
};

// Each figure with the options of its own.
void add_figures(CLI::App& plot, invocation& inv, figures& f) {
  f.progress = plot.add_subcommand(
    "progress", "NAME over RUN, raw and thin, with a bold centred rolling mean; several runs "
                "or facts overlaid with a legend");
  f.progress->add_option("RUN", inv.runs, "the run, or several to overlay")->required();
  f.progress
    ->add_option("--fact", inv.facts,
                 "the series: a fact (its \"value\") or fact.field; again for another series")
    ->option_text("NAME")
    ->allow_extra_args(false);
  f.progress->add_flag("--log-y", inv.log_y,
                       "a log y axis (powers of ten); values of 0 or less are left out, "
                       "and the figure says how many");
  f.progress->add_option("--x", inv.x,
                         "what x is: forward (the forward's number, the default) or time (its "
                         "wall time, seconds since the first value); one run and fact")
    ->option_text("forward|time");
  f.window = f.progress->add_option("--window", f.window_text,
                                    "the rolling mean's window, an odd number of values")
               ->option_text("N");
  f.spent = plot.add_subcommand("spent", "time per node over RUN, added up");
  f.last = f.spent->add_option("--last", f.last_text, "only the last N forwards")
             ->option_text("N");
  f.machines = plot.add_subcommand("machines", "per host, time working there against time waiting");
  for (auto* sub : {f.spent, f.machines})
    sub->add_option("RUN", inv.run, "the run")->required();
  f.study = plot.add_subcommand(
    "study", "the result of each trial of STUDY, and every trial's curve overlaid");
  f.study->add_option("STUDY", inv.study, "the study")->required();
  f.study->add_option("--fact", inv.fact, "the curve: a fact (its \"value\") or fact.field")
    ->option_text("NAME");
  f.study->add_option("--result", inv.result,
                      "the result to draw per trial (default: its first number)")
    ->option_text("NAME");
  f.study->add_option("--by", inv.by,
                      "draw the result against this parameter (a log axis when its values span "
                      "more than 2 decades); the default when every trial has just one parameter, "
                      "else (or with --by trial) the trial's number")
    ->option_text("PARAM");
  f.graph = plot.add_subcommand(
    "graph", "run PROGRAM with $SOMA_DRAW_GRAPH set; it draws its graph's declaration");
  f.graph->add_option("PROGRAM", inv.program,
                      "a program that calls soma::draw::draw_if_asked(g.declaration()), "
                      "and its arguments (after -- when they start with -)")
    ->required();
}

// What every figure takes: the file, its size and title (but a graph's),
// and the options of every command.
void add_file_options(figures& f, command_line& line) {
  auto& inv = line.inv;
  for (auto* sub : {f.progress, f.spent, f.machines, f.study, f.graph}) {
    sub->add_option("-o,--output", inv.output, "the file: .svg or .png")
      ->option_text("FILE")
      ->required();
    if (sub != f.graph) {
      f.sizes.push_back(sub->add_option("--size", f.size_text, "the figure's size in pixels, such as 1280x720")
                          ->option_text("WxH"));
      sub->add_option("--title", inv.title, "the figure's title instead of its own")
        ->option_text("TEXT");
    }
    common_options(*sub, line, prints::no_rows);
  }
}

// -o FILE must say its format by its extension.
void check_output(const std::string& file, const CLI::App& app) {
  auto dot = file.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : file.substr(dot);
  for (auto& c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext != ".svg" && ext != ".png")
    throw usage_error("-o " + file + ": the file must end in .svg or .png, which says the format; "
                      + help_hint(app));
}

// Reads and checks what the figure's options took into `inv`.
void take(const figures& f, invocation& inv, const CLI::App& app) {
  check_output(inv.output, app);
  if (inv.json || inv.csv)
    throw usage_error("`soma plot` draws a figure into -o FILE, and " + script_flag(inv)
                      + " has nothing to print there; the numbers behind it are `soma --json curve RUN NAME`, "
                      "`soma --json nodes RUN`, `soma --json fleet RUN` and `soma --json trials STUDY`");
  if (f.window->count() > 0)
    inv.window = parse_count(f.window_text, "N of `soma plot progress --window N`");
  if (std::any_of(f.sizes.begin(), f.sizes.end(), [](auto* o) { return o->count() > 0; }))
    std::tie(inv.width, inv.height) = parse_size(f.size_text);
  if (f.progress->parsed()) {
    if (inv.x != "forward" && inv.x != "time")
      throw usage_error("--x " + inv.x + ": x is forward (the forward's number) or time (its wall "
                        "time); " + help_hint(app));
    if (inv.facts.empty())
      inv.facts.push_back(inv.fact);
    if (inv.x == "time" && inv.runs.size() * inv.facts.size() > 1)
      throw usage_error("--x time draws one run's one fact; runs and facts overlaid are drawn "
                        "against the forward (leave out --x)");
    if (inv.runs.size() * inv.facts.size() > most_overlaid)
      throw usage_error("`soma plot progress` overlays at most " + std::to_string(most_overlaid)
                        + " series (runs times facts) on one figure, not "
                        + std::to_string(inv.runs.size() * inv.facts.size())
                        + "; draw them in several figures");
    inv.run = inv.runs.front();
    inv.fact = inv.facts.front();
  }
  if (f.last->count() > 0)
    inv.last = parse_count(f.last_text, "N of `soma plot spent --last N`");
}

} // namespace

finish add_plot(command_line& line) {
  auto* plot = line.app.add_subcommand("plot", "draw a figure of RUN, or a graph's declaration, to a file");
  plot->require_subcommand(1);
  auto f = std::make_shared<figures>();
  add_figures(*plot, line.inv, *f);
  add_file_options(*f, line);
  return [f, &app = line.app](invocation& inv) {
    auto named = f->named();
    if (!named)
      return false;
    inv.what = *named;
    take(*f, inv, app);
    return true;
  };
}

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
  std::vector<values> params;
  for (auto& run : inv.runs)
    params.push_back(run_summary(s, run).params);
  auto labels = draw::labels_by_params(inv.runs, params);
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
          return draw::study(s, inv.study, inv.fact, inv.result, frame, inv.by);
        default:
          if (inv.runs.size() > 1 || inv.facts.size() > 1)
            return overlaid(s, inv, frame);
          return draw::progress(s, inv.run, inv.fact,
                                {.window = inv.window, .log_y = inv.log_y, .frame = frame},
                                inv.x == "time" ? draw::x_axis::time : draw::x_axis::forward);
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
