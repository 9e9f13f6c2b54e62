#pragma once

/// @file
/// A cursor over one database of a transaction, closed when it goes. Every
/// move runs guarded (guard.hpp): damage that would fault inside LMDB is a
/// store_error naming the store and the database instead.

#include <string_view>

#include <lmdb.h>

#include "soma/export.hpp"

namespace soma::detail {

class environment;

// Hidden, as the environment it holds is, also in a program built with
// default visibility that includes this header (soma's tests).
SOMA_API_HIDDEN_BEGIN
class cursor {
public:
  /// Throws store_error when LMDB cannot open one. `dbi` may be 0 (a
  /// database that does not exist yet): every move then finds nothing.
  cursor(const environment& env, MDB_txn* txn, MDB_dbi dbi);
  ~cursor();
  cursor(const cursor&) = delete;
  cursor& operator=(const cursor&) = delete;

  /// Moves as `op` says (to `key` for MDB_SET_RANGE / MDB_SET); false at
  /// the end. Throws store_error for an LMDB error or a fault.
  bool move(MDB_cursor_op op, std::string_view at = {});

  /// Deletes the entry it is at (a write transaction's cursor). Throws
  /// map_full or store_error.
  void del();

  [[nodiscard]] std::string_view key() const noexcept {
    return {static_cast<const char*>(k_.mv_data), k_.mv_size};
  }
  [[nodiscard]] std::string_view value() const noexcept {
    return {static_cast<const char*>(v_.mv_data), v_.mv_size};
  }

private:
  const environment& env_;
  MDB_cursor* cur_ = nullptr;
  MDB_val k_{}, v_{};
};
SOMA_API_HIDDEN_END

} // namespace soma::detail
