#include "commands/trace.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "count.hpp"
#include "soma/store/trace.hpp"
#include "usage_error.hpp"

namespace soma::cli {

namespace {

// The texts trace's options are read into.
struct texts {
  std::string forward, last, max_bytes;
};

} // namespace

finish add_trace(command_line& line) {
  auto& inv = line.inv;
  auto* trace = line.app.add_subcommand(
    "trace", "RUN's forwards as a Chrome trace (trace-event JSON) that Perfetto and "
             "chrome://tracing open: nodes as spans per host, trips as arrows, recalls as instants");
  trace->add_option("RUN", inv.run, "the run")->required();
  auto given = std::make_shared<texts>();
  auto* trace_forward = trace->add_option("--forward", given->forward, "only forward N")->option_text("N");
  auto* trace_last = trace->add_option("--last", given->last, "only the last N forwards (default 100)")
                       ->option_text("N");
  trace_forward->excludes(trace_last);
  auto* max_bytes = trace->add_option("--max-bytes", given->max_bytes,
                                      "cut the file before it grows past N bytes (default 50 MiB)")
                      ->option_text("N");
  trace->add_option("-o,--output", inv.output, "the file to write (.json)")
    ->option_text("FILE")
    ->required();
  common_options(*trace, line, prints::no_rows);
  return finish_as(trace, command::trace, [trace_forward, trace_last, max_bytes, given](invocation& inv) {
    if (inv.json || inv.csv)
      throw usage_error("`soma trace` writes JSON to -o FILE already; drop " + script_flag(inv));
    if (trace_forward->count() > 0)
      inv.forward_given = true, inv.forward = parse_count(given->forward, "N of `soma trace RUN --forward N`");
    if (trace_last->count() > 0)
      inv.last = parse_count(given->last, "N of `soma trace RUN --last N`");
    if (max_bytes->count() > 0)
      inv.max_bytes = parse_count(given->max_bytes, "N of `soma trace RUN --max-bytes N`");
  });
}

void trace(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  trace_options o;
  if (inv.forward_given)
    o.forward = inv.forward;
  o.last = inv.last;
  if (inv.max_bytes)
    o.max_bytes = static_cast<std::size_t>(*inv.max_bytes);
  auto t = trace_of(s, inv.run, o);
  std::ofstream file{inv.output, std::ios::binary | std::ios::trunc};
  if (!file || !file.write(t.json.data(), static_cast<std::streamsize>(t.json.size())) || !file.flush())
    throw usage_error("cannot write '" + inv.output + "': " + std::strerror(errno));
  out << "wrote " << t.forwards << (t.forwards == 1 ? " forward" : " forwards") << " of run '"
      << inv.run << "' (" << t.events << " events, " << t.json.size() << " bytes) to " << inv.output
      << "; open it in https://ui.perfetto.dev or chrome://tracing\n";
  if (t.cut)
    err << "soma: " << t.note << '\n';
}

} // namespace soma::cli
