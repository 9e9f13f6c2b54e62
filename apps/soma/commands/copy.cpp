#include "commands/copy.hpp"

#include <chrono>
#include <filesystem>
#include <ostream>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

#include "soma/web/opened_store.hpp"
#include "table.hpp"

namespace soma::cli {

finish add_copy(command_line& line) {
  auto& inv = line.inv;
  auto* copy = line.app.add_subcommand(
    "copy", "a compacted copy of the whole store FROM (a directory or soma://HOST:PORT) in the new "
            "directory DIR: a backup, or a served store brought here whole");
  copy->add_option("FROM", inv.from, "the store to copy: DIR or soma://HOST:PORT")->required();
  copy->add_option("DIR", inv.into, "where the copy goes: a new or empty directory")->required();
  return finish_as(copy, command::copy);
}

void copy_store(const invocation& inv, std::ostream& err) {
  auto began = std::chrono::steady_clock::now();
  web::opened_store from{inv.from, store_options{.read_only = true}};
  from.get().copy_to(inv.into);
  std::error_code ec;
  auto bytes = std::filesystem::file_size(std::filesystem::path{inv.into} / "data.mdb", ec);
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began)
              .count();
  err << "soma: copied the store '" << from.get().path() << "' into '" << inv.into << "' ("
      << (ec ? std::string{"?"} : std::to_string(bytes)) << " bytes) in " << decimal(ms, 0)
      << " ms\n";
}

} // namespace soma::cli
