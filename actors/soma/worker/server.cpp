#include "soma/worker/server.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/to_string.hpp>

#include "soma/atoms.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/detail/libraries.hpp"
#include "soma/wire/record_write.hpp"
#include "soma/detail/record_writer.hpp"
#include "soma/worker/slice_runner.hpp"
#include "soma/store/detail/asking.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/readings.hpp"
#include "soma/wire/served_store.hpp"
#include "soma/wire/trial.hpp"
#include "soma/store/trials.hpp"

namespace soma::serve {

namespace {

using detail::network_mode;
using detail::open_atom;
using detail::project_mode;
using detail::ship_atom;
using detail::shipped_atom;
using detail::slice_atom;
using detail::store_atom;

// A new machine reading goes with the first slice of a session, then with
// the first slice after this long.
constexpr auto reading_every = std::chrono::seconds(1);

struct session_state {
  std::optional<session_catalog> catalog;
  slice_plan plan;
  std::uint64_t number = 0;
  std::optional<std::chrono::steady_clock::time_point> last_reading;
  static inline const char* name = "soma.session";
};

caf::behavior session(caf::stateful_actor<session_state>* self, worker_state* worker,
                      caf::actor client, bool network, std::uint64_t number, log_line log) {
  self->state.catalog.emplace(*worker, network);
  self->state.number = number;
  self->set_default_handler(caf::drop);
  self->monitor(client);
  // The client went: the session ends normally, whatever the client's
  // reason, so that the front actor it is linked to (and every other
  // session) lives on.
  auto why = std::make_shared<std::string>("the worker stops");
  self->set_down_handler([self, why](caf::down_msg& dm) {
    *why = "its client went: " + caf::to_string(dm.reason);
    self->quit();
  });
  self->attach_functor([worker, log, number, why](const caf::error&) {
    worker->session_closed();
    log("session " + std::to_string(number) + " closed (" + *why + ")");
  });
  return {
    [self, worker](slice_atom, const std::string& header,
                   const std::string& input) -> caf::result<std::string, std::string> {
      slice_taken taken; // first: the answer says when, on this machine's clock
      auto& st = self->state;
      // This slice counts, as the seed's first reading says 1; one refused
      // for lack of code (shipped, then sent again) is given back below.
      auto served = worker->served_one();
      std::optional<fact> reading;
      auto now = std::chrono::steady_clock::now();
      if (!st.last_reading || now - *st.last_reading >= reading_every) {
        st.last_reading = now;
        reading = machine_fact(worker->sampler().read(served));
      }
      worker->slice_began();
      struct ending {
        worker_state* w;
        ~ending() { w->slice_ended(); }
      } counted{worker};
      auto how = slice_end::refused;
      auto [answer, output] = run_slice(*st.catalog, st.plan, header, input, std::move(reading), &how,
                                          taken);
      auto& counts = worker->counts;
      if (how == slice_end::needs_code) {
        worker->served_back();
      } else {
        ++counts.slices_served;
        if (how == slice_end::failed)
          ++counts.slices_failed;
        else if (how == slice_end::refused)
          ++counts.slices_refused;
      }
      return caf::result<std::string, std::string>{std::move(answer), std::move(output)};
    },
    [self, worker](ship_atom, const std::string& definition,
                   const std::string& bytes) -> caf::result<shipped_atom> {
      try {
        self->state.catalog->add(worker->ship(definition, bytes));
        return shipped_atom::value;
      } catch (const store_error& e) { // its kind goes too: the client answers kinds
        return caf::make_error(caf::sec::runtime_error, std::string{e.what()},
                               std::string{to_string(e.trouble())});
      } catch (const std::exception& e) {
        return caf::make_error(caf::sec::runtime_error, std::string{e.what()});
      }
    },
  };
}

// A reader's copy of the served store, in a directory of its own that goes
// with it; sent in parts of at most wire::snapshot_part_bytes.
struct copy {
  std::string dir;
  std::uint64_t txn = 0;
  std::uint64_t size = 0;
  int fd = -1;

  copy() = default;
  copy(const copy&) = delete;
  copy& operator=(const copy&) = delete;
  ~copy() {
    if (fd >= 0)
      ::close(fd);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

// A compacted copy of `served` as one read transaction sees it, and the
// transaction it is at least as new as.
std::unique_ptr<copy> copy_of(const store& served) {
  auto* held = &served.env();
  auto out = std::make_unique<copy>();
  // Read before the copy begins: a commit during it makes the copy newer
  // than said, never older, so a reader at worst fetches again.
  out->txn = held->last_txn();
  char tmpl[] = "/tmp/soma-serve-copy-XXXXXX";
  if (!::mkdtemp(tmpl))
    throw std::runtime_error("cannot make a directory for a copy of the store");
  out->dir = tmpl;
  held->copy_to(out->dir);
  auto file = out->dir + "/data.mdb";
  out->fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st{};
  if (out->fd < 0 || ::fstat(out->fd, &st) != 0)
    throw std::runtime_error("cannot read the copy of the store in " + out->dir);
  out->size = static_cast<std::uint64_t>(st.st_size);
  return out;
}

// The part of `c` at `offset`.
wire::snapshot_part part_of(const copy& c, std::uint64_t offset) {
  if (offset > c.size)
    throw std::runtime_error("a copy of " + std::to_string(c.size) + " bytes has no part at "
                             + std::to_string(offset));
  wire::snapshot_part p{c.txn, c.size, offset, {}};
  p.bytes.resize(std::min<std::uint64_t>(wire::snapshot_part_bytes, c.size - offset));
  std::size_t done = 0;
  while (done < p.bytes.size()) {
    auto n = ::pread(c.fd, p.bytes.data() + done, p.bytes.size() - done,
                     static_cast<off_t>(offset + done));
    if (n <= 0)
      throw std::runtime_error("cannot read the copy of the store in " + c.dir);
    done += static_cast<std::size_t>(n);
  }
  return p;
}

// The answer to the trials op `op` (a study's trials added, claimed,
// ended, reclaimed) on `b`, or none when `op` is no trials op.
std::optional<std::string> answer_trials(detail::backend& b, const std::string& op,
                                         const std::string& payload) {
  if (op == "trials_add") {
    auto a = wire::decode_trials_add(payload);
    return wire::encode_trial_numbers(b.add_trials(a.study, a.trials, a.function));
  }
  if (op == "claim") {
    auto a = wire::decode_claim_ask(payload);
    // Held at most a second: the client's call waits five.
    auto hold = std::chrono::milliseconds(std::min<std::uint32_t>(a.wait_ms, 1000));
    return wire::encode_claim_answer(b.claim_trial(a.study, a.claimant, hold));
  }
  if (op == "trial_end") {
    auto e = wire::decode_trial_end(payload);
    return wire::encode_trial_ended(
      b.end_trial(e.study, e.number, e.attempt, e.claimant, e.state, e.result, e.error));
  }
  if (op == "trial_end_claim") {
    auto e = wire::decode_trial_end(payload);
    auto [ended, next] =
      b.end_and_claim(e.study, e.number, e.attempt, e.claimant, e.state, e.result, e.error);
    return wire::encode_trial_ended_claimed(ended, next);
  }
  if (op == "reclaim") {
    auto a = wire::decode_reclaim_ask(payload);
    return wire::encode_trial_numbers(b.reclaim(a.study, a.quiet_over_s));
  }
  return std::nullopt;
}

struct store_session_state {
  /// One writer per client recorder. Shared with the functor that stops
  /// them: CAF destroys an actor's state before its attached functors run.
  std::shared_ptr<std::map<std::uint64_t, caf::actor>> writers =
    std::make_shared<std::map<std::uint64_t, caf::actor>>();
  /// The copy this client is fetching, part by part.
  std::unique_ptr<copy> reading;
  static inline const char* name = "soma.store_session";
};

// The part of a copy of `served` that a reader asks for with `payload`, an
// explicit copy of the whole store (soma copy): the copy `reading` is made
// for the first part (or when there is none), and goes with the last.
std::string copy_part(std::unique_ptr<copy>& reading, const store& served,
                      const std::string& payload) {
  auto offset = wire::decode_snapshot_ask(payload);
  if (offset == 0 || !reading)
    reading = copy_of(served);
  auto part = part_of(*reading, offset);
  if (part.offset + part.bytes.size() >= reading->size)
    reading.reset(); // all of it sent
  return wire::encode_snapshot_part(part);
}

// Hands the batch in `payload` to the writer of the client recorder that
// sent it (made for its first batch); answered with the batch's numbers.
caf::result<std::string> write_records(caf::stateful_actor<store_session_state>* self,
                                       const store& served, const std::string& payload) {
  auto w = detail::decode_record_write(payload);
  if (auto ok = check_run_id(w.options.run); !ok)
    return caf::make_error(caf::sec::invalid_argument, "cannot record: " + describe(ok.error()),
                           std::string{to_string(store_trouble::invalid)});
  auto& writer = (*self->state.writers)[w.recorder];
  if (!writer) {
    w.options.once_for = w.recorder;
    writer = detail::spawn_record_writer(self->system(), served, w.options);
  }
  auto rp = self->make_response_promise<std::string>();
  self->request(writer, caf::infinite, detail::write_atom::value,
                detail::record_batch{std::move(w.forwards), w.closing})
    .then([rp](detail::record_numbers& n) mutable { rp.deliver(detail::encode_record_numbers(n)); },
          [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
  return rp;
}

// A session of a client writing to, or reading, the store this worker serves.
caf::behavior store_session(caf::stateful_actor<store_session_state>* self, worker_state* worker,
                            caf::actor client, std::uint64_t number, log_line log) {
  self->set_default_handler(caf::drop);
  self->monitor(client);
  auto why = std::make_shared<std::string>("the worker stops");
  self->set_down_handler([self, why](caf::down_msg& dm) {
    *why = "its client went: " + caf::to_string(dm.reason);
    self->quit();
  });
  self->attach_functor([writers = self->state.writers, worker, log, number, why](const caf::error&) {
    worker->session_closed();
    for (auto& [id, w] : *writers)
      caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
    log("store session " + std::to_string(number) + " closed (" + *why + ")");
  });
  return {
    [self, worker](store_atom, const std::string& op,
                   std::string& payload) -> caf::result<std::string> {
      auto& served = *worker->served_store;
      ++worker->counts.store_ops;
      try {
        if (op == "reading") {
          put_reading(served, detail::decode_reading(payload, "a reading sent to " + served.path()));
          return std::string{};
        }
        if (detail::is_question(op)) // a reader's: answered here, only the answer goes back
          return detail::answer_question(served.backend().ask(), op, payload);
        if (op == "copy") // an explicit copy of the whole store (soma copy)
          return copy_part(self->state.reading, served, payload);
        if (op == "cache_get") {
          auto a = wire::decode_cache_ask(payload);
          return wire::encode_cache_answer(
            served.backend().cache_get(a.key, detail::cache_identity{a.type, a.node, a.version}));
        }
        if (op == "cache_put") {
          auto k = wire::decode_cache_keep(payload);
          return wire::encode_cache_kept(served.backend().cache_put(
            k.ask.key, detail::cache_identity{k.ask.type, k.ask.node, k.ask.version}, k.output,
            k.limit));
        }
        if (auto answer = answer_trials(served.backend(), op, payload))
          return std::move(*answer);
        if (op == "records")
          return write_records(self, served, payload);
        return caf::make_error(caf::sec::invalid_argument,
                               "a served store does 'records', 'reading', 'copy', 'cache_get', "
                               "'cache_put', 'trials_add', 'claim', 'trial_end', "
                               "'trial_end_claim', 'reclaim' and readers' questions ('ask.*'), "
                               "not '" + op + "'");
      } catch (const store_error& e) { // its kind goes too: the client answers kinds
        return caf::make_error(caf::sec::runtime_error, std::string{e.what()},
                               std::string{to_string(e.trouble())});
      } catch (const std::exception& e) {
        return caf::make_error(caf::sec::runtime_error, std::string{e.what()});
      }
    },
  };
}

// Logs `what` with the client's address, as the middleman knows the node it
// came from (HOST:PORT; its node id when the lookup fails or takes over 1 s),
// then opens the session with `open`: the line is written before the
// session exists, so it is never lost to a session that ends at once. An
// operator reads addresses, not node ids.
caf::result<caf::actor> announce(caf::event_based_actor* self, const log_line& log,
                                 std::string what, const caf::actor& client,
                                 std::function<caf::actor()> open) {
  auto node = client.node();
  auto said = [what, node](const std::string& where) {
    auto client_part = "client " + (where.empty() ? std::string{} : where + ", ") + "node "
                       + caf::to_string(node).substr(0, 12);
    // "... opened (mode project)" and the client read as one parenthesis.
    if (!what.empty() && what.back() == ')')
      return what.substr(0, what.size() - 1) + ", " + client_part + ")";
    return what + " (" + client_part + ")";
  };
  auto rp = self->make_response_promise<caf::actor>();
  self->request(self->system().middleman().actor_handle(), std::chrono::seconds(1),
                caf::get_atom::value, node)
    .then(
      [log, said, open, rp](const caf::node_id&, const std::string& host,
                            std::uint16_t port) mutable {
        log(said(host.empty() ? std::string{} : host + ":" + std::to_string(port)));
        rp.deliver(open());
      },
      [log, said, open, rp](const caf::error&) mutable {
        log(said({}));
        rp.deliver(open());
      });
  return rp;
}

} // namespace

caf::actor spawn_front(caf::actor_system& sys, worker_state& worker, log_line log) {
  return sys.spawn([&worker, log](caf::event_based_actor* self) -> caf::behavior {
    self->set_default_handler(caf::drop);
    return {
      [self, &worker, log](open_atom, const caf::actor& client,
                           const std::string& mode) -> caf::result<caf::actor> {
        auto full = [] {
          return caf::make_error(caf::sec::runtime_error,
                                 "this worker has " + std::to_string(worker_state::max_open_sessions)
                                   + " sessions open, its limit; close one or use another worker");
        };
        if (mode == "store") // a client of soma before store protocol 2, which copied the store
          return caf::make_error(
            caf::sec::runtime_error,
            std::string{"this soma-node answers readers' questions where the store is (store "
                        "protocol 2); the client speaks protocol 1, which copied the whole "
                        "store to read it: upgrade soma on the client's host"});
        if (mode == detail::store_mode) {
          if (!client || !worker.served_store)
            return caf::make_error(caf::sec::runtime_error,
                                   std::string{"this soma-node serves no store: start one with "
                                               "--serve-store DIR"});
          if (!worker.session_opened())
            return full();
          auto number = worker.next_session();
          return announce(self, log, "store session " + std::to_string(number) + " opened", client,
                          [self, &worker, client, number, log] {
                            // Detached: its writes and snapshots block on the disk.
                            return self->spawn<caf::linked + caf::detached>(store_session, &worker,
                                                                            client, number, log);
                          });
        }
        bool network = mode == network_mode;
        if (!client || (!network && mode != project_mode))
          return caf::make_error(caf::sec::invalid_argument,
                                 std::string{"a session opens with a client actor and the mode "
                                             "'project' or 'network'"});
        if (network && !worker.accept_code())
          return caf::make_error(
            caf::sec::runtime_error,
            std::string{"this worker does not run shipped code (soma::mode::network): it was not "
                        "started with --accept-code; start it with --accept-code, or connect with "
                        "soma::mode::project and give it the node library with --nodes"});
        if (!worker.session_opened())
          return full();
        auto number = worker.next_session();
        return announce(self, log, "session " + std::to_string(number) + " opened (mode " + mode + ")",
                        client, [self, &worker, client, network, number, log] {
                          // Linked: a worker told to stop closes its sessions with it.
                          return self->spawn<caf::linked + caf::detached>(session, &worker, client,
                                                                          network, number, log);
                        });
      },
    };
  });
}

} // namespace soma::serve
