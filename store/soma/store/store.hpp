#pragma once

/// @file
/// soma::store: an LMDB environment in a directory, holding records, fact
/// blobs, the cache and machine readings.
///
/// Caveats, as LMDB has them (docs/store.md says more):
/// - never put a store on a network file system: LMDB's locks and memory map
///   need a local disk (a store on another host is reached through a worker);
/// - a process killed while reading leaves a stale reader slot; opening the
///   store clears them (`mdb_reader_check`);
/// - one process opens one directory once: handles to the same directory in
///   one process share one environment (LMDB forbids two).

#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <caf/expected.hpp>

namespace soma {

namespace detail {
class environment;
class remote_link;
} // namespace detail

/// How to open a store.
struct store_options {
  /// Open for reading only: never create the directory, the environment or
  /// a database, and never write. A read-only handle sees what writers in
  /// other processes committed.
  bool read_only = false;
  /// The initial size of the memory map. The map doubles by itself whenever
  /// a write finds it full; the file on disk grows only with what is written.
  std::size_t map_size = std::size_t{1} << 30;
  /// At most this many bytes of kept outputs (soma/store/cache.hpp); when a
  /// new one would exceed it, the oldest are evicted first. None: no limit.
  /// It belongs to this handle: forwards given this handle keep within it.
  std::optional<std::size_t> cache_limit;
  /// Commits through this process's handles may lose their last transaction
  /// to a machine crash (never to a process crash, and never the store's
  /// integrity), for one disk sync per commit instead of two (LMDB's
  /// MDB_NOMETASYNC). Other processes' commits to the same store stay fully
  /// durable. For writers whose every write is soon replaced, such as a
  /// worker's readings. Applies when this process first opens the directory.
  bool expendable = false;
  /// For a served store (`soma://host:port`) beyond loopback: the client's
  /// certificate, its key and the CA the server's is signed by (PEM). When
  /// all three are empty, $SOMA_TLS_CERT, $SOMA_TLS_KEY and $SOMA_TLS_CA
  /// stand in (so the `soma` command reaches one too); none: plain.
  std::string tls_cert, tls_key, tls_ca;
};

/// A store could not be opened or read. what() names the store's directory,
/// what was wrong and what to do.
class store_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The store holds no run of the name asked for (and none was written that
/// damage hid: that is a store_error saying "damaged").
class no_run_error : public store_error {
public:
  using store_error::store_error;
};

/// An LMDB store. A handle: copies share one environment, which closes with
/// the last copy. Safe to use from any thread.
class store {
public:
  /// Opens the store in `dir`, creating it unless `options.read_only`.
  ///
  /// `dir` may be `soma://host:port`: a store served by `soma-node
  /// --serve-store` on another host (docs/fleet.md). Written, it takes
  /// recorders and machine readings as if local. Opened read-only, it is a
  /// snapshot of the served store taken at open, which every reader reads.
  /// Throws store_error (a missing store when read-only, a directory that
  /// cannot be created, a file that is not an LMDB environment, ...).
  explicit store(const std::string& dir = default_path(), store_options options = {});

  /// Opens the store in `dir`; the error is a soma::error_code::store_failed
  /// caf::error whose text is what store_error's would be.
  [[nodiscard]] static caf::expected<store> open(const std::string& dir,
                                                 store_options options = {});

  /// `$SOMA_STORE` if set and not empty, else `./soma-store`.
  [[nodiscard]] static std::string default_path();

  /// The directory, or `soma://host:port`.
  [[nodiscard]] const std::string& path() const noexcept;

  /// The served store's connection when written through `soma://`, else nullptr.
  [[nodiscard]] detail::remote_link* remote() const noexcept { return remote_.get(); }

  /// Whether this handle may only read.
  [[nodiscard]] bool read_only() const noexcept;

  /// Every record's key, `run/<id>/<n>`, runs in byte order, forwards in
  /// numeric order. One scan of the records.
  [[nodiscard]] std::vector<std::string> bound() const;

  /// The most bytes of kept outputs this handle lets the cache hold.
  [[nodiscard]] const std::optional<std::size_t>& cache_limit() const noexcept {
    return cache_limit_;
  }

  /// Forces what this process committed to the store onto the disk, so a
  /// machine crash cannot take it (an `expendable` handle's last commits
  /// included). Nothing to do for a served store: its server syncs. Throws
  /// store_error.
  void sync() const;

  /// For soma's own readers and writers.
  [[nodiscard]] detail::environment& env() const;

private:
  std::shared_ptr<detail::environment> env_;
  std::shared_ptr<detail::remote_link> remote_;
  std::shared_ptr<const std::string> path_;
  bool read_only_ = false;
  std::optional<std::size_t> cache_limit_;
};

} // namespace soma
