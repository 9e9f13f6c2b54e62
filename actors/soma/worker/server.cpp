#include "soma/worker/server.hpp"

#include <chrono>
#include <functional>
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
#include "soma/served/protocol.hpp"
#include "soma/served/session.hpp"
#include "soma/worker/slice_runner.hpp"

namespace soma::serve {

namespace {

using detail::network_mode;
using detail::open_atom;
using detail::project_mode;
using detail::ship_atom;
using detail::shipped_atom;
using detail::slice_atom;

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
      } catch (const store_error& e) { // a soma error: its words and its kind as the code
        return as_error(e);
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

// Opens a session of the store this worker serves for `client`, in `mode`
// (served/protocol.hpp); `svc` is made for the first.
caf::result<caf::actor> open_store_session(caf::event_based_actor* self, worker_state& worker,
                                           std::shared_ptr<served::service>& svc,
                                           const caf::actor& client, const std::string& mode,
                                           const log_line& log) {
  // Refusals as data: the client answers their kinds (served/client.cpp).
  auto refuse = [](std::string why, store_trouble kind = store_trouble::refused) {
    return make_error(code_of(kind), std::move(why));
  };
  if (mode == served::store_mode_1 || mode == served::store_mode_2)
    return refuse("this soma-node serves its store in store protocol 3 (operations by number, "
                  "read-only sessions enforced here); the client speaks protocol "
                  + std::string{mode == served::store_mode_1 ? "1" : "2"}
                  + ": upgrade soma on the client's host");
  if (!client || !worker.served_store)
    return refuse("this soma-node serves no store: start one with --serve-store DIR");
  if (!svc)
    svc = std::make_shared<served::service>(self->system(), *worker.served_store,
                                            served::service_limits{.sessions = worker.store_sessions},
                                            worker.counts.store_ops);
  if (!svc->session_opened())
    return refuse("the served store has " + std::to_string(svc->limits().sessions)
                  + " sessions open, its limit (soma-node --store-sessions); the client tries "
                    "again later, or the server is given a higher limit",
                  store_trouble::busy);
  auto number = worker.next_session();
  worker.store_session_opened();
  bool read_only = mode == served::store_read_mode;
  return announce(self, log,
                  "store session " + std::to_string(number) + " opened"
                    + (read_only ? " (read-only)" : ""),
                  client, [self, &worker, svc, client, read_only, number, log] {
                    auto s = served::spawn_session(self->system(), svc, client, read_only, number,
                                                   log, [&worker] { worker.store_session_closed(); });
                    self->link_to(s); // a worker told to stop closes its sessions with it
                    return s;
                  });
}

} // namespace

caf::actor spawn_front(caf::actor_system& sys, worker_state& worker, log_line log) {
  return sys.spawn([&worker, log](caf::event_based_actor* self) -> caf::behavior {
    self->set_default_handler(caf::drop);
    // What the sessions of the served store share: made for the first, gone
    // with the front and the last of them.
    auto svc = std::make_shared<std::shared_ptr<served::service>>();
    return {
      [self, &worker, log, svc](open_atom, const caf::actor& client,
                                const std::string& mode) -> caf::result<caf::actor> {
        auto full = [] {
          return caf::make_error(caf::sec::runtime_error,
                                 "this worker has " + std::to_string(worker_state::max_open_sessions)
                                   + " sessions open, its limit; close one or use another worker");
        };
        if (mode.starts_with("store"))
          return open_store_session(self, worker, *svc, client, mode, log);
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
