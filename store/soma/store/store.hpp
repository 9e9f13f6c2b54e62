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
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

#include "soma/error.hpp"
#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

namespace detail {
SOMA_API_HIDDEN_BEGIN
class backend;
class environment;
SOMA_API_HIDDEN_END
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
  /// Machine readings written through this handle in a group (what a
  /// served store's server does with its clients' readings) are
  /// committed with one disk sync, as `expendable` does for every write;
  /// every other write through it stays durable (two syncs: the commit,
  /// then the meta page). A machine crash may lose the last readings, which
  /// the next tick replaces. Applies when this process first opens the
  /// directory.
  bool expendable_readings = false;
  /// For a served store (`soma://host:port`, soma::open_store) beyond
  /// loopback: the client's certificate, its key and the CA the server's is
  /// signed by (PEM). When all three are empty, $SOMA_TLS_CERT, $SOMA_TLS_KEY
  /// and $SOMA_TLS_CA stand in (so the `soma` command reaches one too);
  /// none: plain. The actor system it is opened through must have been made
  /// with the same files (soma::system_config::use_tls).
  std::string tls_cert, tls_key, tls_ca;
};

/// What kind of trouble a store_error reports, for a caller that answers
/// kinds differently (an HTTP status, a line in a live view) without reading
/// its words.
enum class store_trouble : std::uint8_t {
  failed,      ///< could not be opened, read or written: permissions, a full disk, a
               ///< read-only handle, a format newer than this soma
  invalid,     ///< what was asked is malformed: a run id, a study name, an argument
  missing,     ///< what was asked for is not in the store: a run, a forward, a study,
               ///< a fact no forward told, nothing that ran
  damaged,     ///< bytes in the store fail their checks (`soma check` lists where)
  unreachable, ///< a served store could not be reached, or its connection went
  timed_out,   ///< a served store did not answer within the call's bound
  busy,        ///< a served store has as many sessions open as it allows (soma-node
               ///< --store-sessions); try again later
  read_only,   ///< a write asked of a store, or a served store's session, opened read-only
  refused,     ///< the store would not do what was asked as things stand: a server of
               ///< another protocol, one that serves no store, a trial's stale attempt
};

/// "failed", "invalid", "missing", "damaged", "unreachable", "timed_out",
/// "busy", "read_only" or "refused".
[[nodiscard]] std::string_view to_string(store_trouble t) noexcept;

/// The store_trouble whose to_string is `name`; `failed` for any other text
/// (what an older peer said, or nothing).
[[nodiscard]] store_trouble store_trouble_named(std::string_view name) noexcept;

/// Whether trying again later may succeed where this failed: a served store
/// unreachable, timed out or busy. A script's exit code (docs/cli.md) and a
/// worker's retry tell these from the rest.
[[nodiscard]] constexpr bool transient(store_trouble t) noexcept {
  return t == store_trouble::unreachable || t == store_trouble::timed_out
         || t == store_trouble::busy;
}

/// The soma::error_code that carries `t` as data (in a caf::error, across
/// the wire or out of a caf::expected).
[[nodiscard]] error_code code_of(store_trouble t) noexcept;

/// The store_trouble a caf::error carries: its soma::error_code, or for
/// CAF's own errors `unreachable` (a connection that failed or went) and
/// `timed_out` (a request past its bound); `failed` for any other.
[[nodiscard]] store_trouble trouble_of(const caf::error& e) noexcept;

/// A store could not be opened or read. what() names the store's directory,
/// what was wrong and what to do; trouble() says which kind of wrong.
class store_error : public std::runtime_error {
public:
  explicit store_error(const std::string& what, store_trouble trouble = store_trouble::failed)
    : std::runtime_error(what), trouble_(trouble) {}

  /// Which kind of trouble this is.
  [[nodiscard]] store_trouble trouble() const noexcept { return trouble_; }

private:
  store_trouble trouble_;
};

/// A store_error as a caf::error of category "soma" that keeps its kind
/// (`code_of(e.trouble())`) and its words; trouble_of() reads it back.
[[nodiscard]] caf::error as_error(const store_error& e);

/// The store holds no run of the name asked for (and none was written that
/// damage hid: that is a store_error whose trouble is `damaged`). Its
/// trouble is `missing`.
class no_run_error : public store_error {
public:
  explicit no_run_error(const std::string& what) : store_error(what, store_trouble::missing) {}
};

/// An LMDB store. A handle: copies share one backend, which closes with the
/// last copy. Safe to use from any thread.
///
/// Its backend is a directory on this host (this constructor) or a store
/// another host serves (`soma://host:port`, opened through an actor system
/// with soma::open_store, soma/remote/served_store.hpp). Readers and writers
/// are the same for both.
class store {
public:
  /// Opens the store in `dir`, creating it unless `options.read_only`.
  /// Throws store_error (a missing store when read-only, a directory that
  /// cannot be created, a file that is not an LMDB environment, a
  /// `soma://` address, which needs an actor system: soma::open_store).
  explicit store(const std::string& dir = default_path(), store_options options = {});

  /// A store over `backend` (soma::open_store makes served ones).
  store(std::shared_ptr<detail::backend> backend, store_options options);

  /// Opens the store in `dir`; the error is a soma::error_code::store_failed
  /// caf::error whose text is what store_error's would be.
  [[nodiscard]] static caf::expected<store> open(const std::string& dir,
                                                 store_options options = {});

  /// `$SOMA_STORE` if set and not empty, else `./soma-store`.
  [[nodiscard]] static std::string default_path();

  /// The directory, or `soma://host:port`.
  [[nodiscard]] const std::string& path() const noexcept;

  /// Whether this handle may only read.
  [[nodiscard]] bool read_only() const noexcept;

  /// Every record's key, `run/<id>/<n>`, runs in byte order, forwards in
  /// numeric order. Costs what runs() costs.
  [[nodiscard]] std::vector<std::string> bound() const;

  /// Writes a compacted copy of the whole store into the directory `dir`
  /// (created when missing; it must hold no store yet): a backup, or a
  /// served store brought to this host whole (`soma copy`), the one way a
  /// served store's bytes leave its host. For a served store, fetched in
  /// parts of at most 4 MiB. Throws store_error.
  void copy_to(const std::string& dir) const;

  /// The most bytes of kept outputs this handle lets the cache hold.
  [[nodiscard]] const std::optional<std::size_t>& cache_limit() const noexcept {
    return cache_limit_;
  }

  /// Forces what this process committed to the store onto the disk, so a
  /// machine crash cannot take it (an `expendable` handle's last commits
  /// included). Nothing to do for a served store: its server syncs. Throws
  /// store_error.
  void sync() const;

  /// For soma's own writers on this host: the local environment. Throws
  /// store_error for a served store, which is written through its backend.
  [[nodiscard]] detail::environment& env() const;

  /// Whether the store is a directory on this host (its reads are memory
  /// maps, cheap on any thread), not a served store (its calls wait on
  /// another host).
  [[nodiscard]] bool on_this_host() const noexcept;

  /// For soma's own readers and writers.
  [[nodiscard]] detail::backend& backend() const noexcept { return *backend_; }

private:
  std::shared_ptr<detail::backend> backend_;
  std::optional<std::size_t> cache_limit_;
};

} // namespace soma

SOMA_API_END
