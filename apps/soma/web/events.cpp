#include "soma/web/events.hpp"

#include <memory>
#include <optional>

#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"

namespace soma::web {

store_watch::store_watch(store s, std::chrono::milliseconds every)
  : store_(std::move(s)), every_(every), thread_([this] { watch(); }) {}

store_watch::~store_watch() {
  stop();
  if (thread_.joinable())
    thread_.join();
}

void store_watch::watch() {
  // The store's last transaction: one question, a round trip for a served
  // store, whose server answers it from its own environment.
  std::optional<std::uint64_t> seen_txn;
  std::unique_lock lock{mutex_};
  while (!stopped_) {
    lock.unlock();
    // A store that cannot be read now is looked at again next time; the
    // streams find out what is wrong when they read.
    std::optional<std::uint64_t> txn;
    try {
      txn = store_.backend().ask().version();
    } catch (const std::exception&) {
    }
    lock.lock();
    if (txn && txn != seen_txn) {
      seen_txn = txn;
      ++moves_;
      moved_.notify_all();
    }
    moved_.wait_for(lock, every_, [&] { return stopped_; });
  }
}

std::uint64_t store_watch::moves() const {
  std::lock_guard lock{mutex_};
  return moves_;
}

std::uint64_t store_watch::wait_past(std::uint64_t seen, std::chrono::milliseconds within) {
  std::unique_lock lock{mutex_};
  moved_.wait_for(lock, within, [&] { return stopped_ || moves_ > seen; });
  return moves_;
}

void store_watch::stop() {
  {
    std::lock_guard lock{mutex_};
    stopped_ = true;
  }
  moved_.notify_all();
}

std::string sse(std::string_view type, std::string_view data, std::string_view id) {
  std::string out;
  out.reserve(data.size() + 32);
  out += "event: ";
  out += type;
  out += '\n';
  if (!id.empty()) {
    out += "id: ";
    out += id;
    out += '\n';
  }
  while (true) {
    auto nl = data.find('\n');
    out += "data: ";
    out += data.substr(0, nl);
    out += '\n';
    if (nl == std::string_view::npos)
      break;
    data.remove_prefix(nl + 1);
  }
  out += '\n';
  return out;
}

} // namespace soma::web
