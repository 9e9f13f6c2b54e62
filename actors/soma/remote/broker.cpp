#include "soma/remote/broker.hpp"

#include "soma/remote/worker_link.hpp"

namespace soma::detail {

std::shared_ptr<worker_link> broker_state::find(const std::string& host) const {
  std::lock_guard guard{lock_};
  auto i = links_.find(host);
  return i == links_.end() ? nullptr : i->second;
}

void broker_state::put(std::string host, std::shared_ptr<worker_link> link) {
  std::lock_guard guard{lock_};
  links_[std::move(host)] = std::move(link);
}

std::vector<std::string> broker_state::hosts() const {
  std::lock_guard guard{lock_};
  std::vector<std::string> out;
  for (auto& [h, l] : links_)
    out.push_back(h);
  return out;
}

bool broker_state::needs_ready(const std::vector<std::string>& hosts) const {
  for (auto& h : hosts)
    if (auto l = find(h); l && !l->connected())
      return true;
  return false;
}

void broker_state::ready(const std::vector<std::string>& hosts) const {
  for (auto& h : hosts)
    if (auto l = find(h))
      l->ensure();
}

} // namespace soma::detail

namespace soma {

broker::broker() : state_(std::make_shared<detail::broker_state>()) {}

broker broker::embedded(std::initializer_list<std::pair<std::string, worker>> workers) {
  broker b;
  for (auto& [host, w] : workers)
    b.put(host, w);
  return b;
}

void broker::put(std::string host, worker w) { state_->put(std::move(host), w.link()); }

std::vector<std::string> broker::hosts() const { return state_->hosts(); }

} // namespace soma
