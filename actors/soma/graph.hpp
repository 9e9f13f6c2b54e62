#pragma once

/// @file
/// soma::graph::somatize and soma::typed_graph: nodes made into actors, and
/// forwards run through them, watched.

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/atoms.hpp"
#include "soma/chain.hpp"
#include "soma/export.hpp"
#include "soma/graph/caller_runs.hpp"
#include "soma/graph/completion.hpp"
#include "soma/graph/node_actor.hpp"
#include "soma/graph/slice_entry.hpp"
#include "soma/node_declaration.hpp"
#include "soma/node_library.hpp"
#include "soma/remote/broker.hpp"
#include "soma/watching.hpp"

SOMA_API_BEGIN

namespace soma {

/// How one forward runs.
struct forward_options {
  /// Who is told the forward's facts while it runs.
  soma::watching watching;
  /// Where cached nodes keep their outputs (`.frozen(v).cached()`); without
  /// one they run every time.
  std::optional<soma::store> store;
  /// Which worker each host name of the graph (`.at("w1")`) means; a graph
  /// with remote nodes needs one (docs/remote.md).
  std::optional<soma::broker> broker;
  /// How long the forward may take, whatever the cause (a slow node, a
  /// worker that stops answering, a lost connection). Past it, forward()
  /// throws soma::forward_error ("the forward did not end within N ms
  /// (forward_options.deadline)") and an actor that asked gets that error;
  /// the forward goes no further than the node it is at, and `broke` says
  /// so once that node returns (a trip to a worker ends at once). A node
  /// already running is not interrupted: C++ cannot stop a thread. Callable
  /// watchers are told nothing after forward() gave up: they belong to the
  /// caller, who has left. None: no deadline.
  std::optional<std::chrono::milliseconds> deadline;
};

} // namespace soma

namespace caf {

// Options hold callables: a request carrying them stays in its process.
template <>
struct allowed_unsafe_message_type<soma::forward_options> : std::true_type {};

} // namespace caf

namespace soma {

/// The typed actor behind a graph: ask it `(forward_atom, In)` or
/// `(forward_atom, In, soma::watching)` and it answers `Out`, or a caf::error
/// of category "soma" (soma::describe says what it is).
template <class In, class Out>
using graph_actor = caf::typed_actor<
  typename caf::replies_to<forward_atom, In>::template with<Out>,
  typename caf::replies_to<forward_atom, In, soma::watching>::template with<Out>,
  typename caf::replies_to<forward_atom, In, forward_options>::template with<Out>>;

/// A graph of node actors taking `In` and giving `Out`.
///
/// A handle: copies share the same actors, which stop when the last copy is
/// destroyed. Any thread may call forward() at any time, many at once;
/// forwards overlap in the pipeline (each node actor runs one forward at a
/// time, in the order they reach it).
template <class In, class Out>
class typed_graph {
public:
  /// Runs one forward and blocks until it ends. Returns the last node's
  /// output. Throws soma::forward_error naming the node when a node throws
  /// (the graph stays usable), and soma::watcher_error when a callable
  /// watcher threw (the forward finished; the others were told everything).
  /// Every watcher has been told every fact before this returns. Do not call
  /// it from inside an actor: ask actor() instead.
  Out forward(In input, const forward_options& options = {}) const {
    auto job = caf::make_counted<detail::blocking_forward<Out>>(&options.watching);
    if (options.deadline) {
      job->give_deadline(*options.deadline, shared_->first_node);
      job->own_watchers();
    }
    job->keep_in(options.store);
    if (options.broker)
      route(*job, *options.broker);
    if constexpr (soma::encodable<In>) {
      // A graph that starts at a worker: the trip goes from this thread and
      // its answer comes back here, when it can (slice_entry.hpp).
      if (shared_->first_slice
          && detail::send_from_caller(*shared_->first_slice, job, [&input] { return encode(input); }))
        return job->take();
    }
    if (shared_->caller && !options.deadline) {
      // The caller runs the graph's idle local nodes itself (caller_runs.hpp).
      // Not with a deadline: a caller inside a slow node could not give up.
      shared_->caller->run(*caf::actor_cast<caf::abstract_actor*>(shared_->first),
                           caf::make_mailbox_element(nullptr, caf::make_message_id(), {},
                                                     detail::step<In>{job, std::move(input)}),
                           job->parked());
      return job->take();
    }
    caf::anon_send(shared_->first, detail::step<In>{job, std::move(input)});
    return job->take();
  }

  /// The graph's actor, for actors that want a forward without blocking:
  /// `self->request(g.actor(), caf::infinite, soma::forward_atom::value, x)`.
  [[nodiscard]] const graph_actor<In, Out>& actor() const noexcept { return shared_->driver; }

  /// The nodes in order, as declared.
  [[nodiscard]] const std::vector<node_declaration>& declaration() const noexcept {
    return shared_->declaration;
  }

  /// Made by soma::graph::somatize. `first_slice` is the remote slice the
  /// graph starts with, if it does.
  typed_graph(caf::actor_system& sys, detail::sink<In> first,
              std::vector<caf::actor> nodes, std::vector<node_declaration> declaration,
              std::shared_ptr<const detail::slice_route> first_slice = nullptr,
              std::shared_ptr<std::shared_ptr<const detail::caller_nodes>> exits_callers = nullptr)
    : shared_(std::make_shared<shared>()) {
    shared_->first = std::move(first);
    shared_->first_slice = std::move(first_slice);
    shared_->nodes = std::move(nodes);
    shared_->declaration = std::move(declaration);
    for (auto& d : shared_->declaration)
      if (d.host && std::find(shared_->hosts.begin(), shared_->hosts.end(), *d.host)
                      == shared_->hosts.end())
        shared_->hosts.push_back(*d.host);
    if (!shared_->declaration.empty())
      shared_->first_node = shared_->declaration.front().name;
    shared_->caller = detail::caller_nodes_of(sys, shared_->nodes);
    if (exits_callers)
      *exits_callers = shared_->caller;
    if constexpr (soma::encodable<In>) {
      if (shared_->first_slice) {
        // A graph that starts at a worker: its first slice's actor is also
        // the graph's actor, so a forward asked of it leaves for the worker
        // from there, with no driver in between.
        auto asking = [first_node = shared_->first_node, hosts = shared_->hosts](detail::slice_actor* self) {
          auto enter = [self](detail::step<In>&& s) { detail::slice_step(self, s); };
          return std::apply([](auto&&... h) { return caf::message_handler{std::move(h)...}; },
                            asked(self, enter, detail::sink<In>{}, first_node, hosts));
        };
        auto a = sys.spawn(detail::slice_driving<In, decltype(asking)>, shared_->first_slice, asking);
        shared_->first = caf::actor_cast<detail::sink<In>>(a);
        shared_->driver = caf::actor_cast<graph_actor<In, Out>>(a);
        shared_->nodes.push_back(a);
        return;
      }
    }
    shared_->driver = sys.spawn(drive, shared_->first, shared_->first_node, shared_->hosts);
  }

private:
  struct shared {
    detail::sink<In> first;
    std::shared_ptr<const detail::slice_route> first_slice; ///< a blocked caller's trip goes there
    graph_actor<In, Out> driver;
    std::vector<caf::actor> nodes;
    std::shared_ptr<const detail::caller_nodes> caller; ///< the nodes a blocked caller runs
    std::vector<node_declaration> declaration;
    std::vector<std::string> hosts; ///< where its remote nodes run
    std::string first_node;         ///< where a forward is headed first

    ~shared() {
      caf::anon_send_exit(driver, caf::exit_reason::user_shutdown);
      for (auto& n : nodes)
        caf::anon_send_exit(n, caf::exit_reason::user_shutdown);
    }
  };

  // Gives the forward its broker, reconnecting lost workers it needs first.
  static void route(detail::forward_state& job, const soma::broker& b,
                    const std::vector<std::string>& hosts) {
    job.route_through(b.state());
    if (!hosts.empty())
      b.state()->ready(hosts);
  }

  void route(detail::forward_state& job, const soma::broker& b) const {
    route(job, b, shared_->hosts);
  }

  // The driver names itself, as every soma actor does (a test that drives
  // actors message by message tells them apart by it).
  struct driver_state {
    static inline const char* name = "soma.graph";
  };

  static typename graph_actor<In, Out>::behavior_type
  drive(typename graph_actor<In, Out>::template stateful_pointer<driver_state> self,
        detail::sink<In> first, std::string first_node, std::vector<std::string> hosts) {
    auto enter = [self, first](detail::step<In>&& s) { self->send(first, std::move(s)); };
    return std::apply([](auto&&... h) { return typename graph_actor<In, Out>::behavior_type{std::move(h)...}; },
                      asked(self, enter, first, std::move(first_node), std::move(hosts)));
  }

  // The three ways to ask the graph's actor `self` for a forward: each starts
  // one and lets `enter` take it into the graph (`first`, its first actor:
  // none when that is `self`).
  template <class Self, class Enter>
  static auto asked(Self* self, Enter enter, detail::sink<In> first, std::string first_node,
                    std::vector<std::string> hosts) {
    auto start = [self, enter, first, first_node, hosts](In& x, forward_options options) {
      auto rp = self->template make_response_promise<Out>();
      auto job = caf::make_counted<detail::requested_forward<Out>>(std::move(options.watching), rp);
      job->keep_in(std::move(options.store));
      if (options.deadline) {
        job->give_deadline(*options.deadline, first_node);
        // A timer of its own ends the forward at its deadline, wherever it
        // is. It goes when the forward ends first (told by the forward), or
        // when the graph's driver goes: it never outlives the graph.
        auto timer = self->spawn([job, driver = caf::actor_cast<caf::actor>(self)](
                                   caf::stateful_actor<detail::deadline_state>* t) -> caf::behavior {
          t->monitor(driver);
          t->set_down_handler([t](caf::down_msg&) { t->quit(); });
          return {[t, job](detail::expire_atom) {
            job->expire(t, false);
            t->quit();
          }};
        });
        job->timed_by(timer);
        // Sent only now: the forward knows its timer before the timer can fire.
        caf::delayed_anon_send(timer, job->allowed(), detail::expire_atom::value);
      }
      if (options.broker) {
        job->route_through(options.broker->state());
        if (options.broker->state()->needs_ready(hosts)) {
          // Reconnecting blocks: do it on a thread of its own, never on the
          // scheduler's, then let the forward go.
          self->template spawn<caf::detached>(
            [b = *options.broker, hosts, to = first ? first : caf::actor_cast<detail::sink<In>>(self),
             step = detail::step<In>{std::move(job), std::move(x)}](caf::event_based_actor* helper) mutable {
              b.state()->ready(hosts);
              caf::anon_send(to, std::move(step));
              helper->quit();
            });
          return rp;
        }
      }
      enter(detail::step<In>{std::move(job), std::move(x)});
      return rp;
    };
    return std::make_tuple(
      [start](forward_atom, In& x) { return start(x, {}); },
      [start](forward_atom, In& x, soma::watching& w) { return start(x, {std::move(w), {}}); },
      [start](forward_atom, In& x, forward_options& o) { return start(x, std::move(o)); });
  }

  std::shared_ptr<shared> shared_;
};

/// Makes graphs.
struct graph {
  /// Spawns one actor per node of `nodes` (a chain made with `>>`, or a
  /// single node) in `sys` and returns the graph. Throws
  /// std::invalid_argument when two nodes share a name.
  template <class Nodes>
  static auto somatize(caf::actor_system& sys, Nodes&& nodes) {
    auto c = detail::as_chain(std::forward<Nodes>(nodes));
    using chain_type = decltype(c);
    using In = typename chain_type::In;
    using Out = typename chain_type::Out;
    auto& owned = c.nodes();
    std::vector<node_declaration> declaration;
    std::vector<std::string> states; // each node's fields encoded, where they are needed
    std::apply(
      [&](auto&... ns) {
        ((declare(declaration, *ns),
          states.push_back(declaration.back().host || declaration.back().cached
                             ? state_of(*ns, declaration.back().name)
                             : std::string{})),
         ...);
      },
      owned);
    std::set<std::string> seen;
    for (auto& d : declaration)
      if (!seen.insert(d.name).second)
        throw std::invalid_argument("two nodes of this graph are named '" + d.name
                                    + "'; facts could not tell them apart: name them "
                                      "apart with .named()");
    std::vector<caf::actor> actors;
    std::vector<detail::slice_exit> exits(declaration.size());
    std::shared_ptr<const detail::slice_route> first_slice;
    // The nodes a blocked caller runs, filled in by the graph once its
    // actors are spawned: a slice's exit gives them the step after it.
    auto callers = std::make_shared<std::shared_ptr<const detail::caller_nodes>>();
    // Everything that can refuse the graph has run: from here on, actors are spawned.
    auto first = spawn_from<0>(sys, owned, declaration, states, actors, exits, first_slice, callers);
    return typed_graph<In, Out>(sys, std::move(first), std::move(actors), std::move(declaration),
                                std::move(first_slice), std::move(callers));
  }

private:
  // LMDB keys hold 511 bytes; a cache age key is 8 + name + 1 + 32.
  static constexpr std::size_t max_cached_name = 400;

  // Declares node `n`, refusing what cannot work: a cached node that is not
  // frozen, or whose In or Out cannot be encoded.
  template <class N>
  static void declare(std::vector<node_declaration>& declaration, const N& n) {
    auto& config = n.config();
    node_declaration d{n.name(), detail::type_name(typeid(N)), config.frozen, config.cached,
                       config.host};
    if (config.cached && !config.frozen)
      throw std::invalid_argument(
        "node '" + d.name + "' is cached but not frozen: what is kept has to be settled, or its "
        "key would point at a value the code no longer produces; mark it .frozen(version) "
        "before .cached()");
    if (config.cached && d.name.size() > max_cached_name)
      throw std::invalid_argument("node '" + d.name.substr(0, 32) + "...' is cached, but its name is "
                                  + std::to_string(d.name.size())
                                  + " bytes long; the name of a cached node is part of its keys "
                                    "and has at most 400 bytes");
    if (config.cached && !detail::cacheable<N>)
      throw std::invalid_argument("node '" + d.name
                                  + "' is cached, but its In or Out has no soma::codec, so it "
                                    "cannot be kept; give the type a codec (docs/codec.md)");
    if (config.host)
      check_remote<N>(d);
    declaration.push_back(std::move(d));
  }

  // Refuses a remote node that cannot travel: no codec for its values,
  // fields of its own and no codec to carry them, or defined outside any
  // node library.
  template <class N>
  static void check_remote(const node_declaration& d) {
    auto at = "node '" + d.name + "' runs at " + *d.host + ", but ";
    if (!detail::cacheable<N>)
      throw std::invalid_argument(at + "its In or Out has no soma::codec, and values cross the "
                                       "wire encoded; give the type a codec (docs/codec.md)");
    if constexpr (!soma::encodable<N>) {
      if (detail::has_fields<N>)
        throw std::invalid_argument(
          at + "its type " + d.type + " has fields of its own and no soma::codec, so they "
          "cannot travel: the worker would make a default " + d.type + " and its settings would "
          "be lost. Give " + d.type + " a codec of its fields, as for a value: template <> struct "
          "soma::codec<" + d.type + "> : soma::fields_codec<" + d.type + "> { static std::string "
          "name() { return \"" + d.type + "\"; } static auto fields(" + d.type + "& x) { return "
          "std::tie(/* its fields */); } }; (docs/remote.md, \"Settings travel\")");
    }
    detail::require_node_library(d.type, at);
  }

  // The node's fields encoded by its codec, or nothing when its type has
  // none: what a worker makes it from, and part of its cache key.
  template <class N>
  static std::string state_of(const N& n, const std::string& name) {
    if constexpr (soma::encodable<N>) {
      try {
        return encode(n);
      } catch (const std::exception& e) {
        throw std::invalid_argument("node '" + name + "': its fields could not be encoded: "
                                    + e.what());
      }
    } else {
      return {};
    }
  }

  // Whether declaration[k + 1] goes in the same trip as declaration[k]: both
  // at one host, and neither cached (a cached remote node is a trip of its
  // own, so that the client can recall it without one).
  static bool same_slice(const std::vector<node_declaration>& declaration, std::size_t k) {
    return k + 1 < declaration.size() && declaration[k].host
           && declaration[k + 1].host == declaration[k].host && !declaration[k].cached
           && !declaration[k + 1].cached;
  }

  // Spawns the actors of nodes I... and returns the one a forward enters
  // node I by. A remote slice (consecutive nodes at one host) is one actor,
  // entered by its first node; `exits[J]` carries a forward on after node J
  // when J ends a slice. `first_slice` is set to the route of a slice that
  // the graph starts with.
  template <std::size_t I, class... Ns>
  static auto spawn_from(caf::actor_system& sys, std::tuple<std::unique_ptr<Ns>...>& nodes,
                         const std::vector<node_declaration>& declaration,
                         const std::vector<std::string>& states, std::vector<caf::actor>& actors,
                         std::vector<detail::slice_exit>& exits,
                         std::shared_ptr<const detail::slice_route>& first_slice,
                         const std::shared_ptr<std::shared_ptr<const detail::caller_nodes>>& callers) {
    using N = std::tuple_element_t<I, std::tuple<Ns...>>;
    using NIn = typename N::In;
    using NOut = typename N::Out;
    detail::sink<NOut> next;
    if constexpr (I + 1 < sizeof...(Ns))
      next = spawn_from<I + 1>(sys, nodes, declaration, states, actors, exits, first_slice, callers);
    if constexpr (soma::encodable<NOut>)
      exits[I] = [next, name = declaration[I].name, callers](std::string_view bytes, detail::forward_ptr&& fw,
                                                              caf::local_actor* self,
                                                              const std::function<void()>* decoded) {
        auto value = decode<NOut>(bytes);
        if (decoded)
          (*decoded)();
        if (!next) {
          detail::finish<NOut>(*fw, name, std::move(value), self);
          return;
        }
        if (!self && *callers && !fw->deadline()) {
          // With no actor, this runs on a blocked caller's thread, which took
          // the worker's answer (send_from_caller), for the forward it waits
          // on: it runs the next nodes itself, as it runs a graph's first
          // (caller_runs.hpp). Not with a deadline, as there.
          using GraphOut = typename std::tuple_element_t<sizeof...(Ns) - 1, std::tuple<Ns...>>::Out;
          auto& done = static_cast<detail::blocking_forward<GraphOut>&>(*fw).parked();
          (*callers)->run(*caf::actor_cast<caf::abstract_actor*>(next),
                          caf::make_mailbox_element(nullptr, caf::make_message_id(), {},
                                                    detail::step<NOut>{std::move(fw), std::move(value)}),
                          done);
          return;
        }
        caf::anon_send(next, detail::step<NOut>{std::move(fw), std::move(value)});
      };
    auto& d = declaration[I];
    if (!d.host) {
      std::shared_ptr<N> owned{std::move(std::get<I>(nodes))};
      auto a = sys.spawn(detail::node_behavior<N>, std::move(owned), d.name, states[I],
                         std::move(next));
      actors.push_back(caf::actor_cast<caf::actor>(a));
      return detail::sink<NIn>{a};
    }
    if (I > 0 && same_slice(declaration, I - 1))
      return detail::sink<NIn>{}; // inside a slice: entered by its first node's actor
    std::size_t j = I;
    while (same_slice(declaration, j))
      ++j;
    if constexpr (soma::encodable<NIn>) {
      auto route = detail::plan_slice(declaration, states, I, j, exits[j]);
      if (I == 0) {
        first_slice = std::move(route); // its actor is the graph's too: typed_graph spawns it
        return detail::sink<NIn>{};
      }
      auto a = sys.spawn(detail::slice_behavior<NIn>, std::move(route));
      actors.push_back(a);
      return caf::actor_cast<detail::sink<NIn>>(a);
    } else {
      return detail::sink<NIn>{}; // refused by declare(): never reached
    }
  }
};

} // namespace soma

SOMA_API_END
