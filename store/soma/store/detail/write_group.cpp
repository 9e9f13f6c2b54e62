#include "soma/store/detail/write_group.hpp"

#include "soma/store/backend.hpp"

#include <algorithm>
#include <exception>
#include <optional>

namespace soma::detail {

namespace {

environment::commit how(std::span<group_part* const> parts) {
  bool durable = std::any_of(parts.begin(), parts.end(), [](auto* p) { return p->durable(); });
  return durable ? environment::commit::durable : environment::commit::expendable;
}

// Writes `parts` in one transaction, committed without its durable sync;
// why it could not, if it could not (then nothing of it was written).
std::optional<store_error> together(environment& env, std::span<group_part* const> parts) {
  try {
    env.write(
      [&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
        for (auto* p : parts)
          p->stage(txn, dbi);
      },
      environment::commit::expendable);
    return std::nullopt;
  } catch (const store_error& e) {
    return e;
  } catch (const std::exception& e) { // an encoding that threw, memory: the part's own failure
    return store_error(e.what(), store_trouble::failed);
  }
}

// How writing a group went: nothing wrong, or why not, and whether its
// transaction was committed all the same (its sync failed).
struct outcome {
  std::optional<store_error> why;
  bool committed = false;
};

// Writes `parts` in one transaction, then makes it durable when one of them
// asks. A sync that fails after the commit is not a reason to write the
// parts again: they are in the store, only not known to be on the disk.
outcome write_once(environment& env, std::span<group_part* const> parts) {
  if (auto why = together(env, parts))
    return {std::move(why), false};
  if (how(parts) == environment::commit::durable) {
    try {
      env.sync();
    } catch (const store_error& e) {
      return {store_error(std::string{"written, but its commit could not be made durable: "}
                            + e.what(),
                          e.trouble()),
              true};
    }
  }
  return {};
}

class function_part final : public group_part {
public:
  function_part(std::function<void(MDB_txn*, const std::function<MDB_dbi(db)>&)> stage,
                std::function<void(const store_error*)> end, bool durable)
    : stage_(std::move(stage)), end_(std::move(end)), durable_(durable) {}

  void stage(MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) override { stage_(txn, dbi); }
  void committed() override { end_(nullptr); }
  void failed(const store_error& why) override { end_(&why); }
  bool durable() const noexcept override { return durable_; }

private:
  std::function<void(MDB_txn*, const std::function<MDB_dbi(db)>&)> stage_;
  std::function<void(const store_error*)> end_;
  bool durable_;
};

} // namespace

std::unique_ptr<group_part>
part_of(std::function<void(MDB_txn*, const std::function<MDB_dbi(db)>&)> stage,
        std::function<void(const store_error*)> end, bool durable) {
  return std::make_unique<function_part>(std::move(stage), std::move(end), durable);
}

std::unique_ptr<group_part> noting_transaction(std::optional<std::uint64_t>& id) {
  auto staged = std::make_shared<std::uint64_t>(0);
  return part_of([staged](MDB_txn* txn,
                          const std::function<MDB_dbi(db)>&) { *staged = mdb_txn_id(txn); },
                 [staged, &id](const store_error* e) {
                   if (!e)
                     id = *staged;
                 },
                 false);
}

std::unique_ptr<group_part> record_sink::part(std::vector<held_forward>&,
                                              const std::vector<std::uint64_t>&, bool,
                                              std::function<void(record_numbers)>) {
  return nullptr; // a sink that cannot be part of a group: the caller writes it alone
}

std::size_t write_group(environment& env, std::span<group_part* const> parts) {
  if (parts.empty())
    return 0;
  auto first = write_once(env, parts);
  if (!first.why) {
    for (auto* p : parts)
      p->committed();
    return 1;
  }
  if (first.committed || parts.size() == 1) { // never written twice
    for (auto* p : parts)
      p->failed(*first.why);
    return first.committed ? 1 : 0;
  }
  std::size_t commits = 0;
  for (auto* p : parts) {
    auto alone = write_once(env, std::span<group_part* const>{&p, 1});
    commits += alone.committed || !alone.why ? 1 : 0;
    if (alone.why)
      p->failed(*alone.why);
    else
      p->committed();
  }
  return commits;
}

} // namespace soma::detail
