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

// Writes `parts` in one transaction; why it could not, if it could not.
std::optional<store_error> together(environment& env, std::span<group_part* const> parts) {
  try {
    env.write(
      [&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
        for (auto* p : parts)
          p->stage(txn, dbi);
      },
      how(parts));
    return std::nullopt;
  } catch (const store_error& e) {
    return e;
  } catch (const std::exception& e) { // an encoding that threw, memory: the part's own failure
    return store_error(e.what(), store_trouble::failed);
  }
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

std::unique_ptr<group_part> record_sink::part(std::vector<held_forward>&,
                                              const std::vector<std::uint64_t>&, bool,
                                              std::function<void(record_numbers)>) {
  return nullptr; // a sink that cannot be part of a group: the caller writes it alone
}

std::size_t write_group(environment& env, std::span<group_part* const> parts) {
  if (parts.empty())
    return 0;
  auto why = together(env, parts);
  if (!why) {
    for (auto* p : parts)
      p->committed();
    return 1;
  }
  if (parts.size() == 1) {
    parts.front()->failed(*why);
    return 0;
  }
  std::size_t commits = 0;
  for (auto* p : parts) {
    if (auto alone = together(env, std::span<group_part* const>{&p, 1})) {
      p->failed(*alone);
    } else {
      p->committed();
      ++commits;
    }
  }
  return commits;
}

} // namespace soma::detail
