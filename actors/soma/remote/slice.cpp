#include "soma/remote/slice.hpp"

#include <cstring>

#include <caf/event_based_actor.hpp>
#include <caf/to_string.hpp>

#include "soma/graph/cache_writer.hpp"
#include "soma/detail/libraries.hpp"
#include "soma/graph/node_actor.hpp"
#include "soma/detail/undecodable.hpp"
#include "soma/remote/broker.hpp"
#include "soma/remote/caller_trips.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/store/cache.hpp"

namespace soma::detail {

namespace {

std::string worker_name(const slice_plan& plan, const std::shared_ptr<worker_link>& link) {
  return "worker " + plan.host + (link ? " (" + link->where().str() + ")" : "");
}

std::string worker_name(const slice_state& st, const std::shared_ptr<worker_link>& link) {
  return worker_name(*st.plan, link);
}

// The execution unit facts are sent from: none on a blocked caller's thread.
caf::execution_unit* unit_of(caf::local_actor* self) { return self ? self->context() : nullptr; }

// Ends `fw` with `broke` at `node`, stamped with the slice's host. `self` is
// the actor ending it, or nullptr on the blocked caller's thread.
void end_broken(const slice_plan& plan, caf::local_actor* self, forward_state& fw,
                const std::string& node, const std::string& error) {
  if (!fw.take_end(node, unit_of(self)))
    return;
  try {
    auto x = broke_fact(node, error, fw.since_began_us(clock::now()));
    x.fields.emplace_back("host", plan.host);
    fw.emit(std::move(x), unit_of(self));
  } catch (...) {
    // Out of memory while saying it: the forward is ours to end all the same.
  }
  fw.fail(node, error, self);
}

void end_broken(slice_actor* self, forward_state& fw, const std::string& node,
                const std::string& error) {
  end_broken(*state_of(self).plan, self, fw, node, error);
}

// How long a trip of `fw` may wait for its answer: until its deadline.
caf::duration trip_timeout(const forward_state& fw) {
  auto& until = fw.deadline();
  if (!until)
    return caf::infinite;
  auto left = std::max(clock::duration{std::chrono::milliseconds(1)}, *until - clock::now());
  return caf::duration{std::chrono::duration_cast<std::chrono::microseconds>(left)};
}

// The trip's `left`. With a worker's stamps (a soma that sends them), also
// both clocks' sides of it: when it was sent by this machine's clock, when
// the worker took it by the worker's, and how long the worker held it; from
// them a reader estimates the worker's clock offset (docs/critical.md).
fact left_fact(const std::string& host, std::int64_t began_us, std::int64_t sent_unix_us,
               std::int64_t took_us, const wire::slice_answer& r) {
  fact x{"left", {{"host", host}, {"began_us", began_us}, {"took_us", took_us}}};
  if (r.taken_us != 0) {
    x.fields.emplace_back("sent_us", sent_unix_us);
    x.fields.emplace_back("taken_us", r.taken_us);
    x.fields.emplace_back("held_us", r.held_us);
  }
  return x;
}

// Who a cached slice's outputs belong to: its one node, at its version.
cache_identity identity(const slice_state& st) {
  auto& m = st.plan->members.front();
  return {m.type, m.name, *st.plan->cached, m.state};
}

void send_trip(slice_actor* self, std::uint64_t id);

// Tells the forward what happened over there, stamped with the host. A
// cached node's first trip in a forward given no store says so once, as a
// node actor does: its `ran` carries "cache": "no store".
void say_facts(const slice_plan& plan, caf::local_actor* self, forward_state& fw,
               std::vector<fact>& facts, bool no_store) {
  for (auto& x : facts) {
    x.fields.emplace_back("host", plan.host);
    if (no_store && x.name == "ran" && plan.cached && x["node"].text() == plan.members.front().name)
      x.fields.emplace_back("cache", "no store");
    fw.emit(std::move(x), unit_of(self));
  }
}

// Now, by this machine's clock, in unix µs: when a trip leaves.
std::int64_t unix_now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// Whether a worker's answer's facts are read for `fw`: only when heard.
wire::answer_facts facts_of(const forward_state& fw) {
  return fw.heard() ? wire::answer_facts::read : wire::answer_facts::skip;
}

// Tells `fw` what the worker's answer `r` to a trip of `route` says: its
// facts, the trip's `left`, then its refusal, if any, which ends the
// forward. True when the forward goes on with the output. Notes whether
// the trip was large (slice_route::large): `in` and `out` bytes.
bool said_answer(const slice_route& route, caf::local_actor* self, forward_state& fw,
                 wire::slice_answer& r, bool no_store, std::int64_t began_us,
                 std::int64_t sent_unix_us, std::int64_t took_us, std::size_t in, std::size_t out,
                 const std::shared_ptr<worker_link>& link) {
  auto& plan = *route.plan;
  route.large.store(in >= large_trip_bytes || out >= large_trip_bytes, std::memory_order_relaxed);
  if (fw.heard()) {
    say_facts(plan, self, fw, r.facts, no_store);
    fw.emit(left_fact(plan.host, began_us, sent_unix_us, took_us, r), unit_of(self));
  }
  switch (r.refused) {
    case wire::refusal::none:
      return true;
    case wire::refusal::node_failed:
      end_broken(plan, self, fw, r.node, r.error);
      return false;
    default: {
      // needs_code among them, when it was not shipped (slice actor) or
      // cannot be (a caller's trip, never sent to a network-mode worker).
      auto& node = r.node.empty() ? plan.members.front().name : r.node;
      end_broken(plan, self, fw, node, worker_name(plan, link) + " refused node " + node + ": " + r.error);
      return false;
    }
  }
}

// Ends `fw` when a worker's answer could not be read (`e`, thrown while
// decoding or saying it).
void unreadable_answer(const slice_plan& plan, caf::local_actor* self, forward_state& fw,
                       const std::shared_ptr<worker_link>& link, const std::exception& e) {
  auto* bytes = dynamic_cast<const undecodable*>(&e);
  end_broken(plan, self, fw, plan.members.front().name,
             worker_name(plan, link) + (bytes ? " answered with bytes that did not decode: " : ": ")
               + e.what());
}

// Carries `fw` on with the slice's output `bytes` (decoded by the route's
// exit), or ends it when they do not decode.
void go_on(const slice_route& route, caf::local_actor* self, forward_ptr fw, const std::string& bytes,
           const std::shared_ptr<worker_link>& link) {
  forward_ptr keep = fw;
  try {
    route.exit(bytes, std::move(fw), self, nullptr);
  } catch (const std::exception& e) {
    end_broken(*route.plan, self, *keep, route.plan->members.back().name,
               "its output from " + worker_name(*route.plan, link) + " did not decode: " + e.what());
  }
}

// Carries `fw` on with the slice's output; a cached slice keeps it first
// (here, in the forward's store), so that the forward says `kept` before
// the next node hears of it.
void carry_on(slice_actor* self, forward_ptr fw, std::string output, const std::string& key,
              const std::shared_ptr<worker_link>& link) {
  auto& st = state_of(self);
  auto exit = [self, link](forward_ptr fw, const std::string& bytes) {
    go_on(*state_of(self).route, self, std::move(fw), bytes, link);
  };
  auto* kept = fw->kept();
  if (!st.plan->cached || key.empty() || !kept) {
    exit(std::move(fw), output);
    return;
  }
  if (!st.cache_writer)
    st.cache_writer = spawn_cache_writer(self);
  auto who = identity(st);
  auto keeping = clock::now();
  auto held = std::make_shared<std::pair<forward_ptr, std::string>>(std::move(fw), std::move(output));
  auto go_on = [self, held, exit, keeping](bool kept_it) {
    auto& fw = held->first;
    if (kept_it)
      node_kept(*fw, state_of(self).plan->members.front().name, keeping, clock::now(), held->second.size(),
                self);
    exit(std::move(fw), held->second);
  };
  self
    ->request(st.cache_writer, keep_within, keep_atom::value,
              cache_write{*kept, key, std::string{who.type}, std::string{who.node},
                          std::string{who.version}, held->second})
    .then([go_on](bool kept_it) { go_on(kept_it); }, [go_on](caf::error&) { go_on(false); });
}

// The worker's answer to trip `id`: the SliceResult and the last node's output.
void answered(slice_actor* self, std::uint64_t id, const std::string& header, std::string& output) {
  auto& st = state_of(self);
  auto i = st.trips.find(id);
  if (i == st.trips.end())
    return; // already ended: its worker was lost first
  auto& t = i->second;
  forward_ptr keep = t.forward; // outlives the trip, whatever happens to it
  auto& fw = *keep;
  // Named only when something went wrong: an answer's hot path builds no text.
  auto link = t.link;
  if (link)
    link->heard();
  auto took = micros(clock::now() - t.sent);
  try {
    auto r = wire::decode_slice_answer(header, facts_of(fw));
    if (r.refused == wire::refusal::needs_code && t.ships < st.plan->members.size()) {
      // mode::network: ship the library it lacks, then send the slice again.
      // What it said meanwhile (its reading) is said now; the trip's `left`
      // will cover the shipping too.
      say_facts(*st.plan, self, fw, r.facts, false);
      std::string definition = r.missing.empty() ? "" : r.missing.front();
      const wire::slice_node* m = nullptr;
      for (auto& x : st.plan->members)
        if (x.definition == definition)
          m = &x;
      if (!m)
        throw std::runtime_error("it asked for a library this slice does not use");
      ++t.ships;
      std::string code = read_file(m->library);
      self->request(t.session, caf::infinite, ship_atom::value, definition, std::move(code))
        .then([self, id](shipped_atom) { send_trip(self, id); },
              [self, id, lib = m->library](caf::error& e) {
                auto& st = state_of(self);
                auto j = st.trips.find(id);
                if (j == st.trips.end())
                  return;
                auto t = std::move(j->second);
                st.trips.erase(j);
                end_broken(self, *t.forward, st.plan->members.front().name,
                           worker_name(st, t.link) + " did not take the node library " + lib + ": "
                             + worker_said(self->system(), e));
              });
      return;
    }
    auto trip_done = std::move(t);
    st.trips.erase(i);
    if (said_answer(*st.route, self, fw, r, trip_done.no_store, trip_done.began_us,
                    trip_done.sent_unix_us, took, trip_done.input_bytes, output.size(), link))
      carry_on(self, std::move(trip_done.forward), std::move(output), trip_done.key, link);
  } catch (const std::exception& e) {
    st.trips.erase(id);
    unreadable_answer(*st.plan, self, fw, link, e);
  }
}

// Ends every trip that went to `session`: its worker is gone. `why` is
// CAF's reason, used only when the link cannot say more.
void lost(slice_actor* self, const caf::actor_addr& session, const std::string& why) {
  auto& st = state_of(self);
  std::vector<trip> gone;
  for (auto i = st.trips.begin(); i != st.trips.end();) {
    if (i->second.session.address() == session) {
      gone.push_back(std::move(i->second));
      i = st.trips.erase(i);
    } else {
      ++i;
    }
  }
  for (auto& t : gone) {
    auto said = t.link ? t.link->loss() : why;
    if (t.link)
      t.link->lost(session, said);
    end_broken(self, *t.forward, st.plan->members.front().name,
               worker_name(st, t.link) + " was lost mid-forward: " + said);
  }
}

void send_trip(slice_actor* self, std::uint64_t id) {
  auto& st = state_of(self);
  auto found = st.trips.find(id);
  if (found == st.trips.end())
    return; // ended meanwhile: its worker was lost while code was shipped
  auto& t = found->second;
  // The value goes as it is; only a worker that may ask for code (and then
  // for the slice again) needs it kept.
  auto input = t.link && t.link->how() == soma::mode::network ? t.input : std::move(t.input);
  self->request(t.session, trip_timeout(*t.forward), slice_atom::value, st.route->header,
                std::move(input))
    .then([self, id](const std::string& header, std::string& output) {
            answered(self, id, header, output);
          },
          [self, id](caf::error& e) {
            auto& st = state_of(self);
            auto i = st.trips.find(id);
            if (i == st.trips.end())
              return;
            if (e == caf::sec::request_timeout) {
              // Its deadline: the trip ends here, the worker stays.
              auto t = std::move(i->second);
              st.trips.erase(i);
              t.forward->expire(self, true);
              return;
            }
            lost(self, i->second.session.address(), self->system().render(e));
          });
}

// A cached slice's recall of `hit`, the output kept for this input: true
// when it decoded (the forward then went on, `recalled`).
bool recalled(slice_actor* self, forward_ptr& fw, const std::string& hit, clock::time_point began) {
  auto& st = state_of(self);
  forward_ptr keep = fw;
  std::function<void()> decoded = [&] {
    node_recalled(*keep, st.plan->members.front().name, began, clock::now(), hit.size(), self);
  };
  try {
    st.route->exit(hit, std::move(fw), self, &decoded);
    return true;
  } catch (const std::exception&) {
    fw = std::move(keep); // it did not decode: a miss, and the node runs
    return false;
  }
}

void trip_for(slice_actor* self, forward_ptr fw, std::string input, std::string key);

} // namespace

slice_holder::slice_holder() : impl(std::make_unique<slice_state>()) {}

slice_holder::~slice_holder() = default;

void require_node_library(const std::string& type, const std::string& at) {
  try {
    (void)library_defining(type);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(at + e.what());
  }
}

std::shared_ptr<const slice_route> plan_slice(const std::vector<node_declaration>& declaration,
                                              const std::vector<std::string>& states,
                                              std::size_t first, std::size_t last, slice_exit exit) {
  auto plan = std::make_shared<slice_plan>();
  plan->host = *declaration[first].host;
  for (auto k = first; k <= last; ++k) {
    auto& lib = library_defining(declaration[k].type);
    plan->members.push_back({declaration[k].type, declaration[k].name, lib.definition, lib.path,
                             states[k]});
  }
  if (declaration[first].cached)
    plan->cached = *declaration[first].frozen;
  auto route = std::make_shared<slice_route>();
  route->header = wire::encode_slice(plan->members);
  route->plan = std::move(plan);
  route->exit = std::move(exit);
  return route;
}

void slice_setup(slice_actor* self, std::shared_ptr<const slice_route> route) {
  auto& st = state_of(self);
  st.route = std::move(route);
  st.plan = st.route->plan.get();
  self->set_down_handler([self](caf::down_msg& dm) {
    state_of(self).watched.erase(dm.source);
    lost(self, dm.source, "the connection closed (" + caf::to_string(dm.reason) + ")");
  });
}

namespace {

// Sends `input` (the first node's In, encoded) for the forward `fw`; for a
// cached slice, recalls it instead when the forward's store keeps it.
void slice_send(slice_actor* self, forward_ptr fw, std::string input) {
  auto& st = state_of(self);
  auto* kept = fw->kept();
  if (!st.plan->cached || !kept) {
    trip_for(self, std::move(fw), std::move(input), {});
    return;
  }
  // A cached slice looks its output up first: a recalled node needs no
  // worker at all. A store on this host is read here; one on another host
  // (soma://) is asked from the cache writer's thread, so that no pooled
  // thread waits on the network.
  auto began = clock::now();
  auto who = identity(st);
  std::string key;
  try {
    key = cache_key(who, input);
  } catch (const std::exception&) {
    trip_for(self, std::move(fw), std::move(input), {});
    return;
  }
  if (kept->on_this_host()) {
    std::optional<std::string> hit;
    try {
      hit = cache_get(*kept, key, who);
    } catch (const std::exception&) {
      hit.reset(); // the store cannot be read: a miss
    }
    if (hit && recalled(self, fw, *hit, began))
      return;
    trip_for(self, std::move(fw), std::move(input), std::move(key));
    return;
  }
  if (!st.cache_writer)
    st.cache_writer = spawn_cache_writer(self);
  self
    ->request(st.cache_writer, keep_within, recall_atom::value,
              cache_write{*kept, key, std::string{who.type}, std::string{who.node},
                          std::string{who.version}, {}})
    .then(
      [self, fw, input, key, began](bool found, const std::string& bytes) mutable {
        if (found && recalled(self, fw, bytes, began))
          return;
        trip_for(self, std::move(fw), std::move(input), std::move(key));
      },
      [self, fw, input, key](caf::error&) mutable {
        trip_for(self, std::move(fw), std::move(input), std::move(key));
      });
}

// Sends `input` for `fw` to the slice's worker, as a trip; `key` is a
// cached slice's key for keeping the output.
void trip_for(slice_actor* self, forward_ptr fw, std::string input, std::string key) {
  auto& st = state_of(self);
  auto& first = st.plan->members.front().name;
  // The one route there is (forward_state.hpp): a broker's.
  auto* b = static_cast<broker_state*>(fw->routed_by());
  if (!b) {
    end_broken(self, *fw, first,
               "node " + first + " runs at " + st.plan->host
                 + ", but the forward was given no broker: forward(x, {.broker = b}) with "
                   "soma::broker::embedded({{\"" + st.plan->host + "\", worker}})");
    return;
  }
  auto link = b->find(st.plan->host);
  if (!link) {
    std::string known;
    for (auto& h : b->hosts())
      known += (known.empty() ? "" : ", ") + h;
    end_broken(self, *fw, first,
               "node " + first + " runs at " + st.plan->host + ", but the forward's broker has no worker "
                 "called " + st.plan->host + " (it knows: " + (known.empty() ? "none" : known) + ")");
    return;
  }
  std::string why;
  auto session = link->session(why);
  if (!session) {
    end_broken(self, *fw, first,
               "worker " + st.plan->host + " (" + link->where().str() + ") cannot be used: " + why);
    return;
  }
  if (st.watched.insert(session.address()).second)
    self->monitor(session);
  auto id = st.next_trip++;
  trip t;
  t.sent = clock::now();
  t.sent_unix_us = unix_now_us();
  t.began_us = fw->since_began_us(t.sent);
  t.input_bytes = input.size();
  t.input = std::move(input);
  t.key = std::move(key);
  if (st.plan->cached && !fw->kept() && !st.said_no_store && fw->heard()) {
    t.no_store = true;
    st.said_no_store = true;
  }
  t.session = std::move(session);
  t.link = std::move(link);
  t.forward = std::move(fw);
  st.trips.emplace(id, std::move(t));
  send_trip(self, id);
}

} // namespace

void slice_take(slice_actor* self, forward_ptr fw, const std::function<std::string()>& encoded) {
  auto& first = state_of(self).plan->members.front().name;
  if (fw->expired_at(first, self))
    return; // past its deadline: it goes no further
  std::string bytes;
  try {
    bytes = encoded();
  } catch (const std::exception& e) {
    end_broken(self, *fw, first, std::string{"its input could not be encoded: "} + e.what());
    return;
  }
  slice_send(self, std::move(fw), std::move(bytes));
}

bool send_from_caller(const slice_route& route, const forward_ptr& fw,
                      const std::function<std::string()>& encoded) {
  auto& plan = *route.plan;
  auto* b = static_cast<broker_state*>(fw->routed_by());
  if (plan.cached || !b || route.large.load(std::memory_order_relaxed))
    return false;
  auto link = b->find(plan.host);
  if (!link || link->how() == soma::mode::network)
    return false;
  std::string why;
  auto session = link->session(why);
  if (!session)
    return false;
  auto& first = plan.members.front().name;
  if (fw->expired_at(first, nullptr))
    return true; // a deadline already past: it has said so
  std::string input;
  try {
    input = encoded();
  } catch (const std::exception&) {
    return false;
  }
  auto sent = clock::now();
  auto sent_unix_us = unix_now_us();
  auto began_us = fw->since_began_us(sent);
  auto in = input.size();
  auto answer = link->callers().ask(session, route.header, std::move(input), fw->deadline());
  switch (answer.kind) {
    case caller_trips::outcome::timed_out:
      fw->expire(nullptr, true); // the worker stays; the forward ends here
      return true;
    case caller_trips::outcome::lost: {
      auto said = link->loss();
      link->lost(session.address(), said);
      end_broken(plan, nullptr, *fw, first, worker_name(plan, link) + " was lost mid-forward: " + said);
      return true;
    }
    case caller_trips::outcome::answered:
      break;
  }
  link->heard();
  auto took = micros(clock::now() - sent);
  try {
    auto r = wire::decode_slice_answer(answer.header, facts_of(*fw));
    if (said_answer(route, nullptr, *fw, r, false, began_us, sent_unix_us, took, in,
                    answer.output.size(), link))
      go_on(route, nullptr, fw, answer.output, link);
  } catch (const std::exception& e) {
    unreadable_answer(plan, nullptr, *fw, link, e);
  }
  return true;
}

} // namespace soma::detail
