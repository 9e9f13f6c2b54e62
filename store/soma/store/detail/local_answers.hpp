#pragma once

/// @file
/// The answers a store on this host gives: each question one read
/// transaction of its LMDB environment. Internal to the store layer (not
/// installed): a user reaches them through soma::store.

#include "soma/store/answers.hpp"
#include "soma/store/detail/environment.hpp"

namespace soma::detail {

/// The answers read from `env` on this host, each question one read
/// transaction. `env` must outlive it.
class local_answers final : public answers {
public:
  explicit local_answers(const environment& env) : env_(env) {}

  std::vector<run_row> runs(const std::optional<std::string>& after, std::size_t count) override;
  run_row run_summary(std::string_view run) override;
  forward_page forwards(std::string_view run, std::uint64_t from, std::size_t count) override;
  curve_part curve(std::string_view run, std::string_view name, std::uint64_t from,
                   std::size_t count, bool times) override;
  std::vector<fact> facts(std::string_view run, std::uint64_t n) override;
  nodes_part nodes(std::string_view run, std::uint64_t from, std::size_t count) override;
  hosts_part hosts(std::string_view run, std::uint64_t from, std::size_t count) override;
  tails_part tails(const tail_options& options, const std::optional<std::string>& after,
                   std::size_t count) override;
  std::vector<std::pair<std::string, reading>> standing(const std::optional<std::string>& after,
                                                        std::size_t count) override;
  std::vector<reading> readings(const std::string& id, std::optional<std::int64_t> after_us,
                                std::size_t count) override;
  std::vector<reading> readings_back(const std::string& id, std::int64_t at_us,
                                     std::size_t count) override;
  machines_back_part readings_back_all(std::int64_t at_us, std::size_t per_machine,
                                       const std::optional<std::string>& after) override;
  studies_part studies(const std::optional<std::string>& after) override;
  std::vector<trial_row> trials(std::string_view study, std::uint64_t from,
                                std::size_t count) override;
  study_row study(std::string_view name) override;
  std::vector<cache_entry_row> cache_entries(const std::optional<std::string>& node,
                                             const std::optional<std::string>& after,
                                             std::size_t count) override;
  check_report check(const check_progress& progress) override;
  std::uint64_t version() override;

  std::optional<stored_forward_page> stored_forwards(std::string_view run, std::uint64_t from,
                                                     std::size_t count) override;

private:
  // The records of `run` from `from`, at most `count`, each given to `f`
  // (forward, key, bytes) inside one read transaction; the run's forwards.
  template <class F>
  std::uint64_t walk_forwards(std::string_view run, std::uint64_t from, std::size_t count, F&& f);

  const environment& env_;
};

} // namespace soma::detail
