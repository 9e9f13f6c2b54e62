#include "soma/web/events.hpp"

#include <memory>

#include "soma/store/detail/environment.hpp"

namespace soma::web {

store_watch::store_watch(store s, std::chrono::milliseconds every)
  : store_(std::move(s)), every_(every), thread_([this] { watch(); }) {}

store_watch::~store_watch() {
  stop();
  if (thread_.joinable())
    thread_.join();
}

void store_watch::watch() {
  // A local store's environment stays the same and its last transaction
  // moves; a served store's reading() is a new copy when the server's moved
  // (and every compacted copy says transaction 1). The copy last seen is
  // held, so a later copy can never be made at its address and pass for it.
  std::shared_ptr<detail::environment> seen_env;
  std::uint64_t seen_txn = 0;
  std::unique_lock lock{mutex_};
  while (!stopped_) {
    lock.unlock();
    // A store that cannot be read now is looked at again next time; the
    // streams find out what is wrong when they read.
    bool read = true;
    std::shared_ptr<detail::environment> env;
    std::uint64_t txn = 0;
    try {
      env = store_.reading();
      txn = env->last_txn();
    } catch (const std::exception&) {
      read = false;
    }
    lock.lock();
    if (read && (env != seen_env || txn != seen_txn)) {
      std::swap(seen_env, env); // the copy seen before goes below, outside the lock
      seen_txn = txn;
      ++moves_;
      moved_.notify_all();
    }
    if (env) { // closing a served store's old copy removes its files: not while streams wait
      lock.unlock();
      env.reset();
      lock.lock();
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
