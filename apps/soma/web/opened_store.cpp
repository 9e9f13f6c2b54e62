#include "soma/web/opened_store.hpp"

#include <cstdlib>

#include <caf/actor_system.hpp>

#include "soma/error.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/system_config.hpp"

namespace soma::web {

namespace {

std::string from_env(const char* name) {
  auto* v = std::getenv(name);
  return v ? v : "";
}

} // namespace

opened_store::opened_store(const std::string& where, store_options options) {
  if (!where.starts_with("soma://")) {
    store_.emplace(where, options);
    return;
  }
  cfg_ = std::make_unique<soma::system_config>();
  soma::tls files{from_env("SOMA_TLS_CERT"), from_env("SOMA_TLS_KEY"), from_env("SOMA_TLS_CA")};
  if (!files.cert.empty() && !files.key.empty() && !files.ca.empty())
    cfg_->use_tls(files);
  sys_ = std::make_unique<caf::actor_system>(*cfg_);
  auto opened = open_store(*sys_, where, options);
  if (!opened)
    throw store_error(describe(opened.error()), trouble_of(opened.error()));
  store_ = std::move(*opened);
}

opened_store::~opened_store() { store_.reset(); }

} // namespace soma::web
