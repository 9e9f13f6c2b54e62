#include "soma/system_config.hpp"

#include <algorithm>
#include <thread>

#include "soma/error.hpp"
#include "soma/fact.hpp"

namespace soma {

system_config::system_config() {
  auto cores = std::max(1u, std::thread::hardware_concurrency());
  set("scheduler.max-threads", static_cast<size_t>(cores));
  set("work-stealing.moderate-poll-attempts", size_t{0});
  set("work-stealing.aggressive-poll-attempts", size_t{2000});
  add_message_type<fact>("soma::fact");
  add_error_category(error_category, [](std::uint8_t code, caf::atom_value, const caf::message& ctx) {
    return describe(caf::error{code, error_category, ctx});
  });
}

} // namespace soma
