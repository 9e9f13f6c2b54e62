#pragma once

/// @file
/// What each subcommand's file in commands/ gives the command line
/// (cli.hpp says how the parts fit), and the pieces of command line the
/// subcommands share: the options they all take, --first N and --last N,
/// and where an error message says to read how a command goes.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "invocation.hpp"

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace soma::cli {

/// The command line being built, as parse() hands it to each add_NAME().
/// Lives until parse() returns.
struct command_line {
  CLI::App& app;                    ///< `soma` itself, its subcommands added to it
  invocation& inv;                  ///< what every option is read into
  std::vector<CLI::Option*>& stores; ///< every --store option, checked once parsed
};

/// What a subcommand does once the command line parsed: when it is the one
/// the command line named, fills in the invocation from what its options
/// took (inv.what first) and checks it, throwing usage_error naming what was
/// wrong; returns whether it was the one. It holds the texts its options
/// were read into, so it must live as long as the command line it was
/// added to.
using finish = std::function<bool(invocation& inv)>;

/// What a subcommand prints: rows a script can ask for as --json or --csv,
/// or something else (a figure, a view, a file), which refuses both.
enum class prints { rows, no_rows };

/// Adds --store DIR, --json and --csv, which every subcommand takes (and
/// `soma` itself, before the subcommand), to `sub`; for one that prints no
/// rows, --json and --csv are left out of its --help (it refuses them,
/// saying where its numbers are).
void common_options(CLI::App& sub, command_line& line, prints what = prints::rows);

/// The flag that asked for rows for a script: "--json" or "--csv".
[[nodiscard]] std::string script_flag(const invocation& inv);

/// Where to read how the command line goes, for an error message: "`soma
/// NAME --help` says how it goes" once a subcommand was named, else "`soma
/// --help` lists the commands". `app` is `soma` itself.
[[nodiscard]] std::string help_hint(const CLI::App& app);

/// --first N and --last N, for a table that can be long. Not copyable: the
/// command line holds the texts it reads them into.
class row_window {
public:
  /// Adds the two options, which exclude each other, to `sub`, whose
  /// table's rows are `rows` ("runs", "points").
  row_window(CLI::App& sub, const std::string& rows);

  row_window(const row_window&) = delete;
  row_window& operator=(const row_window&) = delete;

  /// Sets inv.first and inv.last from what the options took. Throws
  /// usage_error for a text that is not a count, naming `soma NAME --first N`.
  void take(invocation& inv, const std::string& name) const;

private:
  std::string first_text_, last_text_;
  CLI::Option* first_;
  CLI::Option* last_;
};

/// What a subcommand reads and checks of what its options took, once it is
/// the one given (inv.what set): throws usage_error naming what was wrong.
using then_read = std::function<void(invocation& inv)>;

/// The finish of subcommand `sub`: when it is the one given, sets inv.what
/// to `what`, then calls `read` (if any).
[[nodiscard]] finish finish_as(CLI::App* sub, command what, then_read read = {});

/// The same for a subcommand whose table `window` cuts: before `read`, it
/// reads --first and --last, naming the subcommand in what it throws.
[[nodiscard]] finish finish_as(CLI::App* sub, command what, std::shared_ptr<const row_window> window,
                               then_read read = {});

} // namespace soma::cli
