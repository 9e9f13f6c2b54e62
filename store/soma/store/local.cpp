#include "soma/store/local.hpp"
#include "soma/store/trials.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <span>

#include "soma/store/cache.hpp"
#include "soma/store/detail/cache_at.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/local_answers.hpp"
#include "soma/store/detail/readings_at.hpp"
#include "soma/store/detail/trials_at.hpp"
#include "soma/store/detail/write_group.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/record_log.hpp"
#include "soma/store/run_status.hpp"
#include "soma/store/detail/run_standing.hpp"

namespace soma::detail {

namespace {

// LMDB forbids opening one environment twice in a process (closing either
// would drop the other's locks), so handles to one directory share one. This
// map only remembers what is open; it owns nothing.
struct open_environments {
  std::mutex mtx;
  std::map<std::string, std::weak_ptr<environment>> by_path;
};

open_environments& environments() {
  static open_environments instance;
  return instance;
}

std::string canonical(const std::string& dir) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ec), ec);
  return ec ? dir : p.string();
}

std::shared_ptr<environment> environment_for(const std::string& dir, const store_options& options) {
  auto key = canonical(dir);
  auto& envs = environments();
  std::lock_guard<std::mutex> guard{envs.mtx};
  if (auto env = envs.by_path[key].lock()) {
    if (env->read_only() && !options.read_only)
      throw store_error("store '" + dir
                        + "' is already open read-only in this process; open it for writing "
                          "first, or only read it");
    return env;
  }
  auto env = std::make_shared<environment>(dir, options);
  envs.by_path[key] = env;
  return env;
}

// One recorder's run, written here: its log numbers the forwards.
class local_sink final : public record_sink {
public:
  local_sink(std::shared_ptr<environment> env, const writer_options& o)
    : log_(std::move(env), log_options{o.run, o.summarising, o.overwrite, o.once_for, o.params,
                                       o.tags, o.client.empty() ? this_writer()
                                                                : writer_for(o.client)}),
      options_(o) {
    options_.batch = std::max<std::size_t>(1, options_.batch);
  }

  record_numbers write(std::vector<held_forward>& unwritten,
                       const std::vector<std::uint64_t>& asked, bool closing) override {
    record_numbers out;
    while (!unwritten.empty()) {
      try {
        chunk(unwritten, std::min(unwritten.size(), options_.batch), asked, out);
      } catch (const std::exception& e) {
        // store_error, or anything else: what is left stays unwritten, to be
        // tried with the next batch.
        out.error = make_error(error_code::store_failed, e.what());
        break;
      }
    }
    if (closing && unwritten.empty() && !out.error) {
      try {
        log_.end();
      } catch (const std::exception& e) {
        out.error = make_error(error_code::store_failed, e.what());
      }
    }
    return out;
  }

  std::unique_ptr<group_part> part(std::vector<held_forward>& unwritten,
                                   const std::vector<std::uint64_t>& asked, bool closing,
                                   std::function<void(record_numbers)> done) override;

  void dropped() noexcept override {
    try {
      log_.dropped();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soma: could not mark run '%s' as left without closing: %s\n",
                   options_.run.c_str(), e.what());
    }
  }

private:
  friend class sink_part;

  // The log entries of the first `count` forwards of `unwritten`.
  void entries_of(std::vector<held_forward>& unwritten, std::size_t count) {
    entries_.clear();
    for (std::size_t i = 0; i < count; ++i) {
      auto& f = unwritten[i];
      entries_.push_back(log_entry{
        f.id, f.number,
        make_record(f.facts, 0, f.state, f.took_us, f.when_us, options_.summarising), &f.facts});
    }
  }

  // Writes the first `count` forwards in one transaction. Throws what the
  // transaction threw; then nothing of it was written.
  void chunk(std::vector<held_forward>& unwritten, std::size_t count,
             const std::vector<std::uint64_t>& asked, record_numbers& out) {
    entries_of(unwritten, count);
    auto numbered = log_.write(entries_, asked);
    // Handed back; written either way, so with no memory to hand them
    // back with, they are freed.
    auto end = unwritten.begin() + static_cast<std::ptrdiff_t>(count);
    try {
      out.written.insert(out.written.end(), std::make_move_iterator(unwritten.begin()),
                         std::make_move_iterator(end));
    } catch (const std::bad_alloc&) {
    }
    unwritten.erase(unwritten.begin(), end);
    out.numbered.insert(out.numbered.end(), numbered.begin(), numbered.end());
  }

  record_log log_;
  writer_options options_;
  std::vector<log_entry> entries_; ///< reused
};

// One sink's batch in a group: all it holds unwritten, and its run's end
// when it closes, in the group's transaction.
class sink_part final : public group_part {
public:
  sink_part(local_sink& sink, std::vector<held_forward>& unwritten,
            const std::vector<std::uint64_t>& asked, bool closing,
            std::function<void(record_numbers)> done)
    : sink_(sink), unwritten_(unwritten), asked_(asked), closing_(closing),
      done_(std::move(done)) {
    sink_.entries_of(unwritten_, unwritten_.size());
  }

  void stage(MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) override {
    staged_ = sink_.log_.stage(txn, dbi, sink_.entries_, asked_);
    if (closing_)
      sink_.log_.stage_end(txn, dbi, now_us_);
  }

  void committed() override {
    sink_.log_.adopt(staged_);
    record_numbers out;
    out.written = std::move(unwritten_);
    unwritten_.clear();
    out.numbered = std::move(staged_.numbered);
    done_(std::move(out));
  }

  void failed(const store_error& why) override {
    record_numbers out;
    out.error = make_error(error_code::store_failed, why.what());
    done_(std::move(out));
  }

private:
  local_sink& sink_;
  std::vector<held_forward>& unwritten_;
  const std::vector<std::uint64_t>& asked_;
  bool closing_;
  std::function<void(record_numbers)> done_;
  staged_log staged_;
  std::int64_t now_us_ = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
};

std::unique_ptr<group_part> local_sink::part(std::vector<held_forward>& unwritten,
                                             const std::vector<std::uint64_t>& asked,
                                             bool closing,
                                             std::function<void(record_numbers)> done) {
  return std::make_unique<sink_part>(*this, unwritten, asked, closing, std::move(done));
}

class local_backend final : public backend {
public:
  explicit local_backend(std::shared_ptr<environment> env)
    : env_(std::move(env)), answers_(*env_) {}

  const std::string& path() const noexcept override { return env_->path(); }
  bool read_only() const noexcept override { return env_->read_only(); }
  std::shared_ptr<environment> local() noexcept override { return env_; }
  answers& ask() noexcept override { return answers_; }

  std::unique_ptr<record_sink> records(const writer_options& options, std::uint64_t) override {
    return std::make_unique<local_sink>(env_, options);
  }

  void put_reading(const soma::reading& r) override { put_reading_at(*env_, r); }

  std::optional<std::string> cache_get(std::string_view key, const cache_identity& who) override {
    return cache_get_at(*env_, key, who);
  }

  bool cache_put(std::string_view key, const cache_identity& who, std::string_view output,
                 const std::optional<std::size_t>& limit) override {
    return cache_put_at(*env_, key, who, output, limit);
  }

  std::vector<std::uint64_t> add_trials(std::string_view study, const std::vector<values>& trials,
                                        std::string_view function) override {
    return add_trials_at(*env_, study, trials, function);
  }
  std::optional<trial_row> claim_trial(std::string_view study, std::string_view claimant,
                                       std::chrono::milliseconds wait) override {
    return claim_trial_at(*env_, study, claimant, wait);
  }
  [[nodiscard]] caf::expected<void> end_trial(std::string_view study, std::uint64_t number,
                                              std::uint32_t attempt, std::string_view claimant,
                                              trial_state state, const values& result,
                                              const std::string& error) override {
    return end_trial_at(*env_, study, number, attempt, claimant, state, result, error);
  }
  std::vector<std::uint64_t> reclaim(std::string_view study, double quiet_over_s) override {
    return reclaim_at(*env_, study, quiet_over_s);
  }
  [[nodiscard]] std::pair<caf::expected<void>, std::optional<trial_row>>
  end_and_claim(std::string_view study, std::uint64_t number, std::uint32_t attempt,
                std::string_view claimant, trial_state state, const values& result,
                const std::string& error) override {
    return end_and_claim_at(*env_, study, number, attempt, claimant, state, result, error);
  }

  void sync() override { env_->sync(); }
  void copy_to(const std::string& dir) override { env_->copy_to(dir); }

private:
  std::shared_ptr<environment> env_;
  local_answers answers_;
};

} // namespace

std::shared_ptr<backend> open_local(const std::string& dir, const store_options& options) {
  return std::make_shared<local_backend>(environment_for(dir, options));
}

} // namespace soma::detail
