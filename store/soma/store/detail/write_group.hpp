#pragma once

/// @file
/// Group commit: the writes that came while the writer was busy, written in
/// one LMDB write transaction and made durable by one commit. What a served
/// store's server does with the readings and record batches of all its
/// sessions (actors/soma/served/session.cpp).

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <cstdint>
#include <span>

#include "soma/store/detail/environment.hpp"
#include "soma/store/store.hpp"

namespace soma::detail {

/// One write of a group.
class group_part {
public:
  virtual ~group_part() = default;

  /// Writes it in `txn`. It may be staged again, in a new transaction, when
  /// the map grew or another part failed; nothing of it counts before
  /// committed(). Throws store_error.
  virtual void stage(MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) = 0;

  /// The transaction that holds it committed (durably, when it asked).
  virtual void committed() = 0;

  /// It was not written, for this reason.
  virtual void failed(const store_error& why) = 0;

  /// Whether its commit must be durable; an expendable part (a reading)
  /// rides along with a durable one, never the other way round.
  [[nodiscard]] virtual bool durable() const noexcept { return true; }
};

/// A part made of functions: `stage` writes it in the transaction (and may
/// run again, in a new one), `end` hears once the group is done: nullptr
/// when it was committed, else why not.
[[nodiscard]] std::unique_ptr<group_part>
part_of(std::function<void(MDB_txn*, const std::function<MDB_dbi(db)>&)> stage,
        std::function<void(const store_error*)> end, bool durable = true);

/// A part that writes nothing and notes the id of the transaction it was
/// staged in (mdb_txn_id), once committed, in `id`.
[[nodiscard]] std::unique_ptr<group_part>
noting_transaction(std::optional<std::uint64_t>& id);

/// Writes every part in one transaction, durable when one part asks it
/// (its sync follows the commit), and tells each part how it went. When
/// that transaction fails (a part threw, or the commit did), each part is
/// written again alone, so only the part at fault fails. When the commit
/// held but its sync failed, every part is told it failed and none is
/// written again: nothing is written twice. Returns the number of
/// transactions committed.
std::size_t write_group(environment& env, std::span<group_part* const> parts);

} // namespace soma::detail
