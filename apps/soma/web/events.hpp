#pragma once

/// @file
/// soma::web::store_watch: tells live streams when a store moved. One
/// thread looks at the store's last transaction every `every` (a local
/// store: mdb_env_info, no read transaction held; a served one: a round trip
/// asking its version) and wakes every stream waiting; a stream then reads
/// what it shows through the readers, as a page's request does. Nothing here
/// touches the actors that run graphs.
///
/// The events a stream sends are written by sse(): `id:` lines are store
/// positions (a run's forward number), so a client that reconnects with
/// Last-Event-ID resumes after the last forward it had.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "soma/store/store.hpp"

namespace soma::web {

class store_watch {
public:
  /// Starts watching `s`, every `every`.
  store_watch(store s, std::chrono::milliseconds every);

  /// Stops and joins (within `every`).
  ~store_watch();

  store_watch(const store_watch&) = delete;
  store_watch& operator=(const store_watch&) = delete;

  /// How many times the store was seen to move since watching began.
  [[nodiscard]] std::uint64_t moves() const;

  /// Waits until moves() passes `seen`, `within` passes, or stop(); returns
  /// moves().
  std::uint64_t wait_past(std::uint64_t seen, std::chrono::milliseconds within);

  /// Wakes every waiter for good.
  void stop();

private:
  void watch();

  store store_;
  std::chrono::milliseconds every_;
  mutable std::mutex mutex_;
  std::condition_variable moved_;
  std::uint64_t moves_ = 0;
  bool stopped_ = false;
  std::thread thread_;
};

/// One server-sent event: `event: <type>`, `id: <id>` when given, the data
/// (one `data:` line per line of it), and the blank line that ends it.
[[nodiscard]] std::string sse(std::string_view type, std::string_view data,
                              std::string_view id = {});

} // namespace soma::web
