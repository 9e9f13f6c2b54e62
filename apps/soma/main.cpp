// soma: the command that reads a store back (docs/cli.md). This file only
// wires the parts together: cli.cpp parses, commands.cpp reads and prints,
// and every error becomes one "soma: ..." line on stderr and an exit code.

#include <cerrno>
#include <exception>
#include <iostream>

#include "cli.hpp"
#include "commands.hpp"
#include "soma/store/store.hpp"
#include "usage_error.hpp"

int main(int argc, char** argv) {
  using namespace soma::cli;
  try {
    auto inv = parse(argc, argv, std::cout);
    if (!inv)
      return exit_ok;
    auto status = run(*inv, std::cout, std::cerr);
    if (!std::cout.flush()) {
      if (errno == EPIPE)
        return status; // the reader went (`soma live | head`): nothing is lost that it wanted
      std::cerr << "soma: could not write the answer to stdout (a full disk, a closed pipe?)\n";
      return exit_failure;
    }
    return status;
  } catch (const usage_error& e) {
    std::cerr << "soma: " << e.what() << '\n';
    return exit_usage;
  } catch (const soma::store_error& e) {
    std::cerr << "soma: " << e.what() << '\n';
    return soma::transient(e.trouble()) ? exit_unavailable : exit_usage;
  } catch (const std::exception& e) {
    std::cerr << "soma: unexpected error: " << e.what()
              << "; this is a bug in soma, please report it with the command you ran\n";
    return exit_failure;
  }
}
