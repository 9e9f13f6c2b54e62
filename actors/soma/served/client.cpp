// The served store's client: the backend of soma::store for a store
// another host's soma-node serves, reached through the caller's actor
// system; every operation is one call of its session (served/protocol.hpp).

#include "soma/remote/served_store.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/sec.hpp>

#include "soma/error.hpp"
#include "soma/detail/undecodable.hpp"
#include "soma/remote/address.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/served/protocol.hpp"
#include "soma/served/questions.hpp"
#include "soma/remote/worker_link.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/run_status.hpp"
#include "soma/system_config.hpp"
#include "soma/wire/reading.hpp"
#include "soma/wire/record_write.hpp"
#include "soma/wire/served_store.hpp"
#include "soma/wire/trial.hpp"

namespace soma::detail {

namespace {

// How long one call may take from a server that keeps answering
// heartbeats: a write or one part of a reader's answer takes milliseconds
// (each part is bounded, soma/store/answers.hpp; `soma check` walks the
// store there and is asked how far it is, each step answered at once); a
// part of an explicit copy, as long as the server's disk needs (long_within). Past it the session is dropped and the next
// call reconnects. CAF 0.17 can send an answer down a connection to the
// client that the server has not yet noticed is dead (a server stopped and
// resumed while the client reconnected), and the heartbeat on the new
// connection keeps it from timing out: the answer is simply lost. Batches
// are idempotent, so the one sent again is written once. A server that
// stops answering at all is noticed sooner, within the connection timeout
// (soma::detection_bound, 3.5 s by default).
constexpr auto call_within = std::chrono::seconds(5);
constexpr auto long_within = std::chrono::seconds(60);

// How long the server may hold a claim for a trial to be added: well within
// call_within.
constexpr std::chrono::milliseconds wire_wait_cap{1000};

constexpr const char* lost_marker = "soma.served_store.lost";

// Asks `session` once for the caller: a request to a peer that is gone
// would otherwise wait out its whole timeout, since CAF answers no request
// already sent to a proxy that dies. Monitoring the session ends it at once.
caf::behavior asking(caf::event_based_actor* self, caf::actor session) {
  auto pending = std::make_shared<std::optional<caf::response_promise>>();
  self->monitor(session);
  self->set_down_handler([self, pending](caf::down_msg&) {
    if (*pending)
      (*pending)->deliver(caf::make_error(caf::sec::runtime_error, std::string{lost_marker}));
    self->quit();
  });
  return {
    [self, session, pending](served::store_atom, std::uint8_t op, std::string& payload) {
      auto rp = self->make_response_promise();
      *pending = rp;
      self->request(session, caf::infinite, served::store_atom::value, op, std::move(payload))
        .then(
          [self, pending](std::string& x) {
            (*pending)->deliver(std::move(x));
            pending->reset();
            self->quit();
          },
          [self, pending](caf::error& e) {
            (*pending)->deliver(std::move(e));
            pending->reset();
            self->quit();
          });
      return rp;
    },
  };
}

std::string from_env(const char* name) {
  auto* v = std::getenv(name);
  return v ? v : "";
}

class served_backend final : public backend, public std::enable_shared_from_this<served_backend> {
public:
  served_backend(caf::actor_system& sys, std::string address, const store_options& options)
    : sys_(sys), address_(std::move(address)), options_(options) {
    soma::address where;
    try {
      where = parse_address(address_.substr(std::string_view{"soma://"}.size()), "a served store");
    } catch (const std::invalid_argument& e) {
      throw store_error(std::string{e.what()} + " (a served store is soma://HOST:PORT)",
                        store_trouble::invalid);
    }
    std::optional<soma::tls> tls;
    soma::tls files{options.tls_cert, options.tls_key, options.tls_ca};
    if (files.cert.empty() && files.key.empty() && files.ca.empty())
      files = {from_env("SOMA_TLS_CERT"), from_env("SOMA_TLS_KEY"), from_env("SOMA_TLS_CA")};
    if (!files.cert.empty() || !files.key.empty() || !files.ca.empty()) {
      if (files.cert.empty() || files.key.empty() || files.ca.empty())
        throw store_error("cannot reach the served store " + address_
                          + " over TLS: it needs a certificate, its key and a CA (tls_cert, "
                            "tls_key, tls_ca, or $SOMA_TLS_CERT, $SOMA_TLS_KEY, $SOMA_TLS_CA)",
                            store_trouble::invalid);
      tls = files;
    }
    link_ = std::make_shared<worker_link>(sys_, where, soma::mode::project, tls,
                                          std::chrono::seconds(5), 0);
    link_->serve_store(options.read_only);
    try {
      link_->open();
    } catch (const worker_error& e) {
      // What the server said it was (busy, refused) or the network (timed
      // out); a connection that failed otherwise is unreachable.
      auto trouble = e.cause() ? trouble_of(e.cause()) : store_trouble::unreachable;
      if (trouble == store_trouble::failed)
        trouble = store_trouble::unreachable;
      bool reached = trouble != store_trouble::unreachable && trouble != store_trouble::timed_out;
      throw store_error((reached ? "the served store " + address_ + " did not open a session: "
                                 : "cannot reach the served store " + address_ + ": ")
                          + e.what(),
                        trouble);
    }
  }

  const std::string& path() const noexcept override { return address_; }
  bool read_only() const noexcept override { return options_.read_only; }
  std::shared_ptr<environment> local() noexcept override { return nullptr; }
  void sync() override {}

  // What the server answered to `op`, decoded by `f`; bytes that are not its
  // answer are a store_error naming the server.
  template <class F>
  auto answer_of(served::store_op op, std::string bytes, F&& f) {
    try {
      return f(bytes);
    } catch (const undecodable& e) {
      throw store_error("the served store " + address_ + " answered '" + std::string{served::info(op).name}
                        + "' with bytes that are not its answer (" + e.what()
                        + "); is it a soma-node of this version?");
    }
  }

  answers& ask() noexcept override { return answers_; }

  // Fetches the server's compacted copy in parts into `dir`/data.mdb. A
  // server that began another copy meanwhile (it restarted) is asked again
  // from the start, at most three times. A copy cut short is removed.
  void copy_to(const std::string& dir) override {
    auto file = dir + "/data.mdb";
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::FILE* out = std::fopen(file.c_str(), "wb");
      if (!out)
        throw store_error("cannot write a copy of the served store " + address_ + " into " + dir);
      std::uint64_t txn = 0, size = 0, offset = 0;
      bool restarted = false, written = true;
      try {
        do {
          auto part = answer_of(served::store_op::copy, call(served::store_op::copy, wire::encode_snapshot_ask(offset)),
                                wire::decode_snapshot_part);
          if (offset == 0) {
            txn = part.txn;
            size = part.size;
          } else if (part.txn != txn || part.size != size) {
            restarted = true;
            break;
          }
          // What a part may hold is bounded: never more than it says is
          // left, never more than a part is, never somewhere else.
          auto left = size - offset;
          if (part.offset != offset || part.bytes.size() > left
              || part.bytes.size() > wire::snapshot_part_bytes || (part.bytes.empty() && left > 0))
            throw store_error("the served store " + address_ + " sent a part of its copy of "
                              + std::to_string(part.bytes.size()) + " bytes at "
                              + std::to_string(part.offset) + " where " + std::to_string(offset)
                              + " of " + std::to_string(size) + " bytes was asked for");
          written = std::fwrite(part.bytes.data(), 1, part.bytes.size(), out) == part.bytes.size();
          if (!written)
            break;
          offset += part.bytes.size();
        } while (offset < size);
      } catch (...) {
        std::fclose(out);
        std::remove(file.c_str());
        throw;
      }
      written = std::fclose(out) == 0 && written;
      if (restarted) {
        std::remove(file.c_str());
        continue;
      }
      if (!written) {
        std::remove(file.c_str());
        throw store_error("cannot write a copy of the served store " + address_ + " into " + dir
                          + " (" + std::to_string(size) + " bytes): is the disk full?");
      }
      return;
    }
    std::remove(file.c_str());
    throw store_error("the served store " + address_ + " kept beginning new copies while one was "
                      "fetched; try again", store_trouble::unreachable);
  }

  std::unique_ptr<record_sink> records(const writer_options& options,
                                       std::uint64_t recorder) override;

  void put_reading(const soma::reading& r) override {
    refuse_if_read_only("write a machine reading");
    (void)call(served::store_op::reading, wire::encode_reading(r));
  }

  std::optional<std::string> cache_get(std::string_view key, const cache_identity& who) override {
    return answer_of(served::store_op::cache_get,
                     call(served::store_op::cache_get, wire::encode_cache_ask({std::string{key}, std::string{who.type},
                                                               std::string{who.node},
                                                               std::string{who.version}})),
                     wire::decode_cache_answer);
  }

  bool cache_put(std::string_view key, const cache_identity& who, std::string_view output,
                 const std::optional<std::size_t>& limit) override {
    refuse_if_read_only("keep an output");
    return answer_of(served::store_op::cache_put,
                     call(served::store_op::cache_put, wire::encode_cache_keep({{std::string{key}, std::string{who.type},
                                                                 std::string{who.node},
                                                                 std::string{who.version}},
                                                                std::string{output},
                                                                limit})),
                     wire::decode_cache_kept);
  }

  std::vector<std::uint64_t> add_trials(std::string_view study, const std::vector<values>& trials,
                                        std::string_view function) override {
    refuse_if_read_only("add trials");
    return answer_of(served::store_op::trials_add,
                     call(served::store_op::trials_add, wire::encode_trials_add({std::string{study},
                                                                 std::string{function}, trials})),
                     wire::decode_trial_numbers);
  }

  std::optional<trial_row> claim_trial(std::string_view study, std::string_view claimant,
                                       std::chrono::milliseconds wait) override {
    refuse_if_read_only("claim a trial");
    // The server holds an ask up to wait_cap for a trial to be added, so a
    // waiting claimant hears of one within milliseconds at one call a second.
    auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
      auto hold = std::clamp(left, std::chrono::milliseconds{0}, wire_wait_cap);
      auto got = answer_of(served::store_op::claim,
                           call(served::store_op::claim, wire::encode_claim_ask({std::string{study},
                                                                 std::string{claimant},
                                                                 static_cast<std::uint32_t>(hold.count())})),
                           wire::decode_claim_answer);
      if (got || std::chrono::steady_clock::now() >= deadline)
        return got;
    }
  }

  [[nodiscard]] caf::expected<void> end_trial(std::string_view study, std::uint64_t number,
                                              std::uint32_t attempt, std::string_view claimant,
                                              trial_state state, const values& result,
                                              const std::string& error) override {
    refuse_if_read_only("end a trial");
    return answer_of(served::store_op::trial_end,
                     call(served::store_op::trial_end, wire::encode_trial_end({std::string{study}, number, attempt,
                                                               std::string{claimant}, state, result,
                                                               error})),
                     wire::decode_trial_ended);
  }

  [[nodiscard]] std::pair<caf::expected<void>, std::optional<trial_row>>
  end_and_claim(std::string_view study, std::uint64_t number, std::uint32_t attempt,
                std::string_view claimant, trial_state state, const values& result,
                const std::string& error) override {
    refuse_if_read_only("end a trial");
    return answer_of(served::store_op::trial_end_claim,
                     call(served::store_op::trial_end_claim,
                          wire::encode_trial_end({std::string{study}, number, attempt,
                                                  std::string{claimant}, state, result, error})),
                     wire::decode_trial_ended_claimed);
  }

  std::vector<std::uint64_t> reclaim(std::string_view study, double quiet_over_s) override {
    refuse_if_read_only("hand trials back");
    return answer_of(served::store_op::reclaim,
                     call(served::store_op::reclaim, wire::encode_reclaim_ask({std::string{study}, quiet_over_s})),
                     wire::decode_trial_numbers);
  }

  // Asks the server to do `op` with `payload`; blocks, bounded. Throws
  // store_error naming the server.
  std::string call(served::store_op op, std::string payload) {
    auto& row = served::info(op);
    std::string why;
    auto session = link_->session(why);
    if (!session) {
      link_->ensure(); // reconnect once, bounded
      session = link_->session(why);
      if (!session)
        throw store_error("the served store " + address_ + " cannot be reached: " + why,
                          store_trouble::unreachable);
    }
    caf::scoped_actor self{sys_};
    std::string answer;
    std::optional<std::string> failure;
    auto trouble = store_trouble::failed; // what the server or the network said it was
    bool timed_out = false;
    auto asker = sys_.spawn(asking, session);
    auto within = row.long_call ? long_within : call_within;
    self->request(asker, caf::duration{within}, served::store_atom::value,
                  static_cast<std::uint8_t>(op), std::move(payload))
      .receive([&](std::string& x) { answer = std::move(x); },
               [&](caf::error& e) {
                 timed_out = e == caf::sec::request_timeout;
                 trouble = trouble_of(e); // a refusal is data: its code is its kind
                 if (e.category() == error_category)
                   failure = describe(e);
                 else if (e.context().match_elements<std::string>()) // the way's words
                   failure = e.context().get_as<std::string>(0);
                 else
                   failure = sys_.render(e);
               });
    if (failure && *failure == lost_marker) {
      auto why = link_->loss();
      link_->lost(session.address(), why);
      throw store_error("the served store " + address_ + " did not " + std::string{row.name}
                        + ": it was lost (" + why + "); the next call reconnects",
                        store_trouble::unreachable);
    }
    if (failure) {
      caf::anon_send_exit(asker, caf::exit_reason::user_shutdown);
      if (timed_out) {
        link_->lost(session.address(), "it did not answer within the call's bound");
        throw store_error("the served store " + address_ + " did not " + std::string{row.name}
                            + ": no answer within " + std::to_string(within.count())
                            + " s (is it stopped or overloaded?); the next call reconnects",
                          store_trouble::timed_out);
      }
      throw store_error("the served store " + address_ + " did not " + std::string{row.name} + ": " + *failure,
                        trouble);
    }
    link_->heard();
    return answer;
  }

private:
  void refuse_if_read_only(const std::string& what) const {
    if (options_.read_only)
      throw store_error("cannot " + what + " in the served store " + address_
                          + ": it was opened read-only",
                        store_trouble::read_only);
  }

  caf::actor_system& sys_;
  std::string address_;
  store_options options_;
  std::shared_ptr<worker_link> link_;
  // Readers' questions, each one call (a check, which reads the whole store
  // there, may take the long bound).
  served::remote_answers answers_{
    address_, [this](served::store_op op, std::string ask) { return call(op, std::move(ask)); }};
};

// One recorder's batches, written by the server's own writer for this
// recorder as if local; what did not reach it stays here, to go with the
// next batch.
class served_sink final : public record_sink {
public:
  served_sink(std::shared_ptr<served_backend> to, writer_options options, std::uint64_t recorder)
    : to_(std::move(to)), options_(std::move(options)), recorder_(recorder) {
    // The server writes for this process: it keeps who, and sees it go.
    auto& self = this_writer();
    options_.client = self.host + "-" + std::to_string(self.pid);
  }

  record_numbers write(std::vector<held_forward>& unwritten, const std::vector<std::uint64_t>&,
                       bool closing) override {
    record_numbers out;
    if (to_->read_only()) {
      out.error = make_error(error_code::store_failed, "cannot record in the served store "
                                                         + to_->path() + ": it was opened read-only");
      return out;
    }
    try {
      auto answer = decode_record_numbers(
        to_->call(served::store_op::records, encode_record_write({recorder_, options_, unwritten, closing})));
      out.written = std::move(unwritten);
      unwritten.clear();
      // Cleared once the server wrote something: a later session of this
      // recorder (after a reconnect) must not clear what this one wrote. A
      // batch the server could not write at all leaves the run uncleared.
      if (!answer.numbered.empty())
        options_.overwrite = false;
      out.numbered = std::move(answer.numbered);
      if (answer.error)
        out.error = make_error(error_code::store_failed,
                               "the served store " + to_->path() + ": " + describe(answer.error));
    } catch (const std::exception& e) {
      out.error = make_error(error_code::store_failed, e.what());
    }
    return out;
  }

private:
  std::shared_ptr<served_backend> to_;
  writer_options options_;
  std::uint64_t recorder_;
};

std::unique_ptr<record_sink> served_backend::records(const writer_options& options,
                                                     std::uint64_t recorder) {
  return std::make_unique<served_sink>(shared_from_this(), options, recorder);
}

} // namespace

} // namespace soma::detail

namespace soma {

caf::expected<store> open_store(caf::actor_system& sys, const std::string& where,
                                store_options options) {
  try {
    if (!where.starts_with("soma://"))
      return store{where, options};
    return store{std::make_shared<detail::served_backend>(sys, where, options), options};
  } catch (const store_error& e) {
    return as_error(e); // its kind, as its code: trouble_of() reads it
  }
}

} // namespace soma
