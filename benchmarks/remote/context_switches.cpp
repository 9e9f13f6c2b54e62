#include "context_switches.hpp"

#include <filesystem>
#include <fstream>
#include <string>

std::uint64_t context_switches(pid_t pid) {
  std::uint64_t total = 0;
  std::error_code ec;
  auto tasks = "/proc/" + std::to_string(pid) + "/task";
  for (auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream status(task.path() / "status");
    std::string line;
    while (std::getline(status, line)) {
      auto colon = line.find(':');
      if (colon == std::string::npos || line.find("ctxt_switches") == std::string::npos)
        continue;
      try {
        total += std::stoull(line.substr(colon + 1));
      } catch (const std::exception&) {
      }
    }
  }
  return total;
}
