#include "soma/store/detail/capnp_bytes.hpp"
#include "soma/detail/slice_actor.hpp"

#include <cstring>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <caf/event_based_actor.hpp>
#include <caf/to_string.hpp>

#include "soma/detail/libraries.hpp"
#include "soma/detail/remote_protocol.hpp"
#include "soma/schema/remote.capnp.h"
#include "soma/store/detail/fact_lists.hpp"

namespace soma::detail {

namespace {

std::string worker_name(const slice_state& st, const std::shared_ptr<worker_link>& link) {
  return "worker " + st.host + (link ? " (" + link->where().str() + ")" : "");
}

// Ends `fw` with `broke` at `node`, stamped with the host.
void end_broken(slice_actor* self, forward_state& fw, const std::string& node,
                const std::string& error) {
  if (!fw.take_end(node, self->context()))
    return;
  try {
    auto x = broke_fact(node, error, fw.since_began_us(clock::now()));
    x.fields.emplace_back("host", self->state.host);
    fw.emit(std::move(x), self->context());
  } catch (...) {
    // Out of memory while saying it: the forward is ours to end all the same.
  }
  fw.fail(node, error, self);
}

// How long a trip of `fw` may wait for its answer: until its deadline.
caf::duration trip_timeout(const forward_state& fw) {
  auto& until = fw.deadline();
  if (!until)
    return caf::infinite;
  auto left = std::max(clock::duration{std::chrono::milliseconds(1)}, *until - clock::now());
  return caf::duration{std::chrono::duration_cast<std::chrono::microseconds>(left)};
}

fact left_fact(const std::string& host, std::int64_t began_us, std::int64_t took_us) {
  return fact{"left",
              {{"host", host}, {"began_us", std::to_string(began_us)}, {"took_us", std::to_string(took_us)}}};
}

std::string encode_slice(const std::vector<slice_member>& members, const std::string& input) {
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::Slice>();
  auto ns = root.initNodes(static_cast<unsigned>(members.size()));
  for (unsigned i = 0; i < members.size(); ++i) {
    ns[i].setType(members[i].type);
    ns[i].setName(members[i].name);
    ns[i].setDefinition(members[i].definition);
    ns[i].setLibrary(members[i].library);
  }
  root.setInput(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(input.data()), input.size()));
  return detail::to_bytes(message);
}

void send_trip(slice_actor* self, std::uint64_t id);

// Tells the forward what happened over there, stamped with the host.
void say_facts(slice_actor* self, forward_state& fw, capnp::List<schema::Fact>::Reader facts) {
  for (auto& x : read_facts(facts)) {
    x.fields.emplace_back("host", self->state.host);
    fw.emit(std::move(x), self->context());
  }
}

// The worker's answer to trip `id`.
void answered(slice_actor* self, std::uint64_t id, const std::string& bytes) {
  auto& st = self->state;
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
  auto worker = [&st, link] { return worker_name(st, link); };
  auto took = micros(clock::now() - t.sent);
  auto first = st.members.front().name;
  try {
    if (bytes.size() % sizeof(capnp::word) != 0)
      throw std::runtime_error("its size is not a whole number of words");
    auto words = detail::aligned_words(bytes);
    capnp::FlatArrayMessageReader reader{words};
    auto r = reader.getRoot<schema::SliceResult>();
    auto refusal = r.getRefusal();
    if (refusal == schema::Refusal::NEEDS_CODE && t.ships < st.members.size()) {
      // mode::network: ship the library it lacks, then send the slice again.
      // What it said meanwhile (its reading) is said now; the trip's `left`
      // will cover the shipping too.
      say_facts(self, fw, r.getFacts());
      std::string definition = r.getMissing().size() ? std::string{r.getMissing()[0]} : "";
      const slice_member* m = nullptr;
      for (auto& x : st.members)
        if (x.definition == definition)
          m = &x;
      if (!m)
        throw std::runtime_error("it asked for a library this slice does not use");
      ++t.ships;
      std::string code = read_file(m->library);
      self->request(t.session, caf::infinite, ship_atom::value, definition, std::move(code))
        .then([self, id](shipped_atom) { send_trip(self, id); },
              [self, id, lib = m->library](caf::error& e) {
                auto& st = self->state;
                auto j = st.trips.find(id);
                if (j == st.trips.end())
                  return;
                auto t = std::move(j->second);
                st.trips.erase(j);
                auto& ctx = e.context();
                auto text = ctx.match_elements<std::string>() ? ctx.get_as<std::string>(0)
                                                              : self->system().render(e);
                end_broken(self, *t.forward, st.members.front().name,
                           worker_name(st, t.link) + " did not take the node library " + lib + ": "
                             + text);
              });
      return;
    }
    say_facts(self, fw, r.getFacts());
    fw.emit(left_fact(st.host, t.began_us, took), self->context());
    auto trip_done = std::move(t);
    st.trips.erase(i);
    std::string node = r.getNode();
    std::string error = r.getError();
    switch (refusal) {
      case schema::Refusal::NONE: {
        auto out = r.getOutput();
        try {
          st.exit(std::string_view{reinterpret_cast<const char*>(out.begin()), out.size()},
                  std::move(trip_done.forward), self);
        } catch (const std::exception& e) {
          end_broken(self, fw, st.members.back().name,
                     "its output from " + worker() + " did not decode: " + e.what());
        }
        return;
      }
      case schema::Refusal::NODE_FAILED:
        end_broken(self, fw, node, error);
        return;
      default:
        end_broken(self, fw, node.empty() ? first : node,
                   worker() + " refused node " + (node.empty() ? first : node) + ": " + error);
        return;
    }
  } catch (const kj::Exception& e) {
    st.trips.erase(id);
    end_broken(self, fw, first,
               worker() + " answered with bytes that did not decode: " + e.getDescription().cStr());
  } catch (const std::exception& e) {
    st.trips.erase(id);
    end_broken(self, fw, first, worker() + ": " + e.what());
  }
}

// Ends every trip that went to `session`: its worker is gone. `why` is
// CAF's reason, used only when the link cannot say more.
void lost(slice_actor* self, const caf::actor_addr& session, const std::string& why) {
  auto& st = self->state;
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
    end_broken(self, *t.forward, st.members.front().name,
               worker_name(st, t.link) + " was lost mid-forward: " + said);
  }
}

void send_trip(slice_actor* self, std::uint64_t id) {
  auto& st = self->state;
  auto found = st.trips.find(id);
  if (found == st.trips.end())
    return; // ended meanwhile: its worker was lost while code was shipped
  auto& t = found->second;
  self->request(t.session, trip_timeout(*t.forward), slice_atom::value, t.slice)
    .then([self, id](std::string& result) { answered(self, id, result); },
          [self, id](caf::error& e) {
            auto& st = self->state;
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

} // namespace

void slice_setup(slice_actor* self, std::string host, std::vector<slice_member> members,
                 slice_exit exit) {
  auto& st = self->state;
  st.host = std::move(host);
  st.members = std::move(members);
  st.exit = std::move(exit);
  self->set_down_handler([self](caf::down_msg& dm) {
    self->state.watched.erase(dm.source);
    lost(self, dm.source, "the connection closed (" + caf::to_string(dm.reason) + ")");
  });
}

void slice_broke(slice_actor* self, forward_state& fw, const std::string& error) {
  end_broken(self, fw, self->state.members.front().name, error);
}

void slice_send(slice_actor* self, forward_ptr fw, std::string input) {
  auto& st = self->state;
  auto& first = st.members.front().name;
  auto* b = fw->broker();
  if (!b) {
    end_broken(self, *fw, first,
               "node " + first + " runs at " + st.host
                 + ", but the forward was given no broker: forward(x, {.broker = b}) with "
                   "soma::broker::embedded({{\"" + st.host + "\", worker}})");
    return;
  }
  auto link = b->find(st.host);
  if (!link) {
    std::string known;
    for (auto& h : b->hosts())
      known += (known.empty() ? "" : ", ") + h;
    end_broken(self, *fw, first,
               "node " + first + " runs at " + st.host + ", but the forward's broker has no worker "
                 "called " + st.host + " (it knows: " + (known.empty() ? "none" : known) + ")");
    return;
  }
  std::string why;
  auto session = link->session(why);
  if (!session) {
    end_broken(self, *fw, first,
               "worker " + st.host + " (" + link->where().str() + ") cannot be used: " + why);
    return;
  }
  if (st.watched.insert(session.address()).second)
    self->monitor(session);
  auto id = st.next_trip++;
  trip t;
  t.sent = clock::now();
  t.began_us = fw->since_began_us(t.sent);
  t.slice = encode_slice(st.members, input);
  t.session = std::move(session);
  t.link = std::move(link);
  t.forward = std::move(fw);
  st.trips.emplace(id, std::move(t));
  send_trip(self, id);
}

} // namespace soma::detail
