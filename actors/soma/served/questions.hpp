#pragma once

/// @file
/// Readers' questions over a wire (schema/remote.capnp, Ask and the answers
/// after it; the ask_* rows of served/protocol.hpp): the server's side,
/// which answers a question with its local answers, and the client's, an
/// `answers` whose every question is one call of a transport it is given
/// (the session, served/client.cpp).

#include <atomic>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "soma/export.hpp"
#include "soma/served/protocol.hpp"
#include "soma/store/answers.hpp"

namespace soma::served {

using detail::answers;
using detail::cache_entry_row;
using detail::curve_part;
using detail::hosts_part;
using detail::machines_back_part;
using detail::studies_part;
using detail::nodes_part;
using detail::tails_part;

/// The answer of `a` to the question `op` asked with `ask` (Ask bytes), as
/// bytes for the wire. Throws store_error as the question does, and
/// store_error (`invalid`) for bytes that are no question or an op that is
/// not a question.
[[nodiscard]] std::string answer_question(answers& a, store_op op,
                                          std::string_view ask);

/// How far a check on the server is, as an ask.check answer: `done` with
/// the report, or its entries so far of `total`.
[[nodiscard]] std::string encode_check_step(const check_report& r, bool done,
                                            std::uint64_t total);

/// Sends a question's op and Ask bytes, and returns the answer's bytes;
/// throws store_error when it cannot.
using question_call = std::function<std::string(store_op op, std::string ask)>;

/// The answers of a store elsewhere, each question one `call`. `where`
/// names it in errors (soma://host:port). Answers are checked as a local
/// reader checks what it reads: values kept in the store arrive sealed.
class SOMA_API_EXPORT remote_answers final : public answers {
public:
  remote_answers(std::string where, question_call call)
    : where_(std::move(where)), call_(std::move(call)) {}

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

  /// Bytes of answers received so far (what crossed the wire for readers).
  [[nodiscard]] std::uint64_t received() const noexcept { return received_; }

  /// Questions asked so far: each one round trip.
  [[nodiscard]] std::uint64_t asked() const noexcept { return asked_; }

  /// The largest answer received so far, in bytes: a part's bound, seen.
  [[nodiscard]] std::uint64_t largest() const noexcept { return largest_; }

private:
  template <class F>
  auto asked(store_op op, std::string ask, F&& decode);

  // The answer's bytes to `op`, counted, not decoded.
  std::string fetched(store_op op, std::string ask);

  // The next part of forwards a reader reading a run whole will ask for,
  // asked before the current part is decoded.
  struct prefetch {
    std::string run;
    std::uint64_t from = 0;
    std::size_t count = 0;
    std::future<std::string> bytes;
  };
  std::mutex prefetch_lock_;
  std::optional<prefetch> prefetch_;

  std::string where_;
  question_call call_;
  std::atomic<std::uint64_t> received_{0};
  std::atomic<std::uint64_t> asked_{0};
  std::atomic<std::uint64_t> largest_{0};
};

} // namespace soma::served
