#include "soma/system_config.hpp"

#include <algorithm>
#include <thread>

#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>

#include "soma/error.hpp"
#include "soma/fact.hpp"

namespace soma {

system_config::system_config() {
  auto cores = std::max(1u, std::thread::hardware_concurrency());
  set("scheduler.max-threads", static_cast<size_t>(cores));
  set("work-stealing.moderate-poll-attempts", size_t{0});
  set("work-stealing.aggressive-poll-attempts", size_t{2000});
  add_message_type<fact>("soma::fact");
  load<caf::io::middleman>();
  set("middleman.workers", size_t{0});
  add_error_category(error_category, [](std::uint8_t code, caf::atom_value, const caf::message& ctx) {
    return describe(caf::error{code, error_category, ctx});
  });
}

system_config& system_config::use_tls(const soma::tls& files) {
  load<caf::openssl::manager>();
  openssl_certificate = files.cert;
  openssl_key = files.key;
  openssl_cafile = files.ca;
  return *this;
}

} // namespace soma
