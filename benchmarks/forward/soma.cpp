// (d)-(g) soma: the three steps as a graph of node actors, forwarded from a
// blocking caller (back to back, and one at a time into an idle graph) and
// from an actor keeping many forwards in flight.

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "bench.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"
#include "soma/store/readers.hpp"

namespace bench {

namespace {

struct AddOne : soma::node<AddOne, std::int64_t, std::int64_t> {
  Out forward(const In& x, soma::context&) override { return add_one(x); }
};

struct TimesThree : soma::node<TimesThree, std::int64_t, std::int64_t> {
  Out forward(const In& x, soma::context&) override { return times_three(x); }
};

struct MinusTwo : soma::node<MinusTwo, std::int64_t, std::int64_t> {
  Out forward(const In& x, soma::context&) override { return minus_two(x); }
};

using int_graph = soma::typed_graph<std::int64_t, std::int64_t>;

// Three `ran` and one `finished` per forward.
constexpr std::uint64_t facts_per_forward = 4;

using counter = std::shared_ptr<std::atomic<std::uint64_t>>;

caf::behavior counting(caf::event_based_actor*, counter n) {
  return {
    [n](const soma::fact&) { n->fetch_add(1, std::memory_order_relaxed); },
  };
}

// Counts facts told a forward at a time (soma::watcher::whole_forwards).
caf::behavior counting_whole(caf::event_based_actor*, counter n) {
  return {
    [n](const soma::forward_facts& x) { n->fetch_add(x.facts.size(), std::memory_order_relaxed); },
  };
}

// Waits, with a deadline, until the watcher has handled `want` facts; says
// what is wrong when it did not. Returns when it saw the last one counted
// (polling every 100 us, so up to about 0.2 ms late: under 0.02 us a forward
// over the rows' 10,000 or more forwards).
clock::time_point drain(row& r, const counter& n, std::uint64_t want) {
  auto deadline = clock::now() + std::chrono::seconds{10};
  while (n->load(std::memory_order_relaxed) < want && clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds{100});
  auto seen = clock::now();
  auto got = n->load(std::memory_order_relaxed);
  if (got != want)
    r.problems.push_back("the watcher counted " + std::to_string(got) + " facts, not "
                         + std::to_string(want));
  return seen;
}

// A blocking row: `n` forwards from this thread, one after another. Returns
// how many forwards it ran, warm-up included.
template <class MakeOptions>
std::uint64_t blocking(row& r, const int_graph& g, const options& opt, MakeOptions&& make,
              const counter& n_facts = nullptr) {
  std::uint64_t forwards = 0;
  measure(r, opt.reps, opt.forwards, [&](std::size_t n) {
    soma::forward_options fo = make();
    std::int64_t sum = 0;
    auto began = clock::now();
    for (std::size_t i = 0; i < n; ++i)
      sum += g.forward(static_cast<std::int64_t>(i), fo);
    forwards += n;
    // Timed: with an actor watching, the forwards are done when it has
    // counted every fact, not when the last one was queued for it (and the
    // next repetition starts with an idle watcher).
    auto ended = n_facts ? drain(r, n_facts, facts_per_forward * forwards) : clock::now();
    auto took = ended - began;
    if (sum != expected_sum(static_cast<std::int64_t>(n)))
      r.problems.push_back("outputs summed to " + std::to_string(sum));
    return took;
  });
  return forwards;
}

// -- one forward at a time into an idle graph ---------------------------------

// How long the caller sleeps before each forward of the idle row: the gap
// between forwards of a training loop, long enough for idle workers to stop
// spinning and go to their slower polling or to sleep.
constexpr auto idle_gap = std::chrono::milliseconds{1};

// CPU time this process has used so far, all threads, user and system.
std::chrono::duration<double> process_cpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return std::chrono::duration<double>{seconds(ru.ru_utime) + seconds(ru.ru_stime)};
}

// The blocking row again, but the caller sleeps idle_gap (untimed) before
// each forward; only the forwards are timed. Also records the process's CPU
// time per wall second over the whole loop, sleeps included: what an idle
// graph costs the machine between forwards.
void blocking_at_idle(row& r, const int_graph& g, const options& opt) {
  std::vector<double> cpu; // one per run, warm-up first
  measure(r, opt.reps, opt.idle_forwards(), [&](std::size_t n) {
    std::int64_t sum = 0;
    clock::duration took{};
    auto cpu_began = process_cpu();
    auto wall_began = clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      std::this_thread::sleep_for(idle_gap);
      auto began = clock::now();
      sum += g.forward(static_cast<std::int64_t>(i));
      took += clock::now() - began;
    }
    std::chrono::duration<double> wall = clock::now() - wall_began;
    cpu.push_back((process_cpu() - cpu_began) / wall * 100);
    if (sum != expected_sum(static_cast<std::int64_t>(n)))
      r.problems.push_back("outputs summed to " + std::to_string(sum));
    return took;
  });
  r.cpu_percent.assign(cpu.begin() + 1, cpu.end()); // without the warm-up
}

// -- many forwards in flight, asked for by an actor ---------------------------

struct in_flight_result {
  clock::time_point ended;
  std::int64_t sum = 0;
  std::string error;
};

struct driver_state {
  soma::graph_actor<std::int64_t, std::int64_t> g;
  soma::watching w;
  std::size_t issued = 0;
  std::size_t done = 0;
  std::size_t total = 0;
  std::int64_t sum = 0;
  bool failed = false;
  std::shared_ptr<std::promise<in_flight_result>> result;
  static inline const char* name = "bench.driver";
};

using driver = caf::stateful_actor<driver_state>;

void issue(driver* self);

void answered(driver* self, std::int64_t y) {
  auto& st = self->state;
  st.sum += y;
  if (++st.done == st.total) {
    st.result->set_value({clock::now(), st.sum, {}});
    self->quit();
  } else if (st.issued < st.total) {
    issue(self);
  }
}

void issue(driver* self) {
  auto& st = self->state;
  auto x = static_cast<std::int64_t>(st.issued++);
  auto on_error = [self](caf::error& e) {
    if (!std::exchange(self->state.failed, true))
      self->state.result->set_value({clock::now(), 0, soma::describe(e)});
    self->quit();
  };
  auto on_value = [self](std::int64_t y) { answered(self, y); };
  if (st.w.empty())
    self->request(st.g, caf::infinite, soma::forward_atom::value, x).then(on_value, on_error);
  else
    self->request(st.g, caf::infinite, soma::forward_atom::value, x, st.w)
      .then(on_value, on_error);
}

caf::behavior drive(driver* self, soma::graph_actor<std::int64_t, std::int64_t> g,
                    soma::watching w, std::size_t total, std::size_t in_flight,
                    std::shared_ptr<std::promise<in_flight_result>> result) {
  auto& st = self->state;
  st.g = std::move(g);
  st.w = std::move(w);
  st.total = total;
  st.result = std::move(result);
  for (std::size_t i = 0; i < in_flight && st.issued < total; ++i)
    issue(self);
  // Everything happens in the response handlers; the actor needs a behaviour
  // only so that it is not done before its first answer.
  return {[](caf::unit_t) {}};
}

void in_flight(row& r, const int_graph& g, const options& opt, const soma::watcher& watcher,
               caf::actor_system& sys, const counter& n_facts) {
  std::uint64_t forwards = 0;
  measure(r, opt.reps, opt.throughput_forwards, [&](std::size_t n) {
    soma::watching w;
    if (watcher.is_actor())
      w = soma::watching{watcher};
    auto result = std::make_shared<std::promise<in_flight_result>>();
    auto done = result->get_future();
    auto began = clock::now();
    sys.spawn(drive, g.actor(), std::move(w), n, opt.in_flight, result);
    auto res = done.get();
    if (!res.error.empty())
      r.problems.push_back(res.error);
    else if (res.sum != expected_sum(static_cast<std::int64_t>(n)))
      r.problems.push_back("outputs summed to " + std::to_string(res.sum));
    forwards += n;
    // Timed: with an actor watching, to when it has counted every fact, which
    // is after the last answer.
    auto ended = n_facts ? drain(r, n_facts, facts_per_forward * forwards) : res.ended;
    return ended - began;
  });
}

// (g) with a recorder watching: `n` forwards in flight into a fresh store a
// repetition, timed from the first forward to the end of flush(), which
// returns once every record is durable. The store must then hold n records.
void in_flight_recorded(row& r, const int_graph& g, const options& opt, caf::actor_system& sys) {
  // A directory of its own each repetition: a store stays open in the
  // process while anything holds it, so one path would be the same store.
  unsigned rep = 0;
  measure(r, opt.reps, opt.throughput_forwards, [&](std::size_t n) {
    auto dir = std::filesystem::temp_directory_path()
               / ("bench_forward." + std::to_string(::getpid()) + ".recorded." + std::to_string(rep++));
    std::filesystem::remove_all(dir);
    auto took = clock::duration{};
    {
      soma::store s{dir.string()};
      soma::recorder rec{sys, s, {.run = "in_flight"}};
      auto result = std::make_shared<std::promise<in_flight_result>>();
      auto done = result->get_future();
      auto began = clock::now();
      sys.spawn(drive, g.actor(), soma::watching{rec}, n, opt.in_flight, result);
      auto res = done.get();
      rec.flush();
      took = clock::now() - began;
      if (!res.error.empty())
        r.problems.push_back(res.error);
      auto rows = soma::runs(s);
      if (rows.size() != 1 || rows[0].forwards != n)
        r.problems.push_back("the store holds " + std::to_string(rows.empty() ? 0 : rows[0].forwards)
                             + " records, not " + std::to_string(n));
    }
    std::filesystem::remove_all(dir);
    return took;
  });
}

} // namespace

std::vector<row> soma_forward(caf::actor_system& sys, const options& opt) {
  auto g = soma::graph::somatize(sys, AddOne{}.named("add_one") >> TimesThree{}.named("times_three")
                                        >> MinusTwo{}.named("minus_two"));
  std::vector<row> rows;

  if (row d{"d  soma forward, no watcher"}; opt.wants(d.name)) {
    blocking(d, g, opt, [] { return soma::forward_options{}; });
    rows.push_back(std::move(d));
  }

  if (row idle{std::string{idle_row}}; opt.wants(idle.name)) {
    // Not asked for by the scenario: (d) with the graph gone idle before each
    // forward, as between the steps of a training loop.
    blocking_at_idle(idle, g, opt);
    rows.push_back(std::move(idle));
  }

  if (row e{"e  soma forward, counting actor"}; opt.wants(e.name)) {
    auto n = std::make_shared<std::atomic<std::uint64_t>>(0);
    auto watcher = sys.spawn(counting, n);
    blocking(e, g, opt, [&] { return soma::forward_options{.watching = watcher}; }, n);
    caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
    rows.push_back(std::move(e));
  }

  if (row e3{"e  soma forward, whole-forward counting actor"}; opt.wants(e3.name)) {
    // Issue 27: (e) with the actor told each forward's facts as one message.
    auto n = std::make_shared<std::atomic<std::uint64_t>>(0);
    auto watcher = sys.spawn(counting_whole, n);
    blocking(e3, g, opt, [&] {
      return soma::forward_options{.watching = soma::watcher::whole_forwards(watcher)};
    }, n);
    caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
    rows.push_back(std::move(e3));
  }

  if (row e2{"e2 soma forward, counting callable"}; opt.wants(e2.name)) {
    // Not asked for by the scenario: splits (e) into making the facts (here)
    // and sending them to an actor (the rest of e).
    std::atomic<std::uint64_t> n{0};
    auto forwards = blocking(e2, g, opt, [&] {
      return soma::forward_options{
        .watching = [&n](const soma::fact&) { n.fetch_add(1, std::memory_order_relaxed); }};
    });
    auto want = facts_per_forward * forwards;
    if (n.load() != want)
      e2.problems.push_back("the callable counted " + std::to_string(n.load()) + " facts, not "
                            + std::to_string(want));
    rows.push_back(std::move(e2));
  }

  if (row f{"f  soma forward, printer to /dev/null"}; opt.wants(f.name)) {
    std::FILE* null = std::fopen("/dev/null", "w");
    if (!null) {
      f.problems.push_back("cannot open /dev/null for writing");
    } else {
      blocking(f, g, opt, [null] { return soma::forward_options{.watching = soma::printer{null}}; });
      std::fclose(null);
    }
    rows.push_back(std::move(f));
  }

  if (row gw{"g  soma in flight, counting actor", true}; opt.wants(gw.name)) {
    auto n = std::make_shared<std::atomic<std::uint64_t>>(0);
    auto watcher = sys.spawn(counting, n);
    in_flight(gw, g, opt, watcher, sys, n);
    caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
    rows.push_back(std::move(gw));
  }

  if (row gw{"g  soma in flight, whole-forward counting actor", true}; opt.wants(gw.name)) {
    auto n = std::make_shared<std::atomic<std::uint64_t>>(0);
    auto watcher = sys.spawn(counting_whole, n);
    in_flight(gw, g, opt, soma::watcher::whole_forwards(watcher), sys, n);
    caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
    rows.push_back(std::move(gw));
  }

  if (row gr{"g  soma in flight, recorder", true}; opt.wants(gr.name)) {
    // Issue 27: every forward in flight recorded, to a fresh store, timed to
    // when the recorder's flush() says every one of them is written.
    in_flight_recorded(gr, g, opt, sys);
    rows.push_back(std::move(gr));
  }

  if (row g0{"g  soma in flight, no watcher", true}; opt.wants(g0.name)) {
    in_flight(g0, g, opt, caf::actor{}, sys, nullptr);
    rows.push_back(std::move(g0));
  }
  return rows;
}

} // namespace bench
