// (b0), (b) and (e) soma: the seed graph tokenize >> embed >> score, forwarded
// from a blocking caller, without and with a recorder (default options,
// summarising "loss") that is also told one loss fact per forward; and the
// process's memory while a recorder records.

#include <atomic>
#include <mutex>
#include <thread>

#include <malloc.h>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include "../../apps/examples/seed_nodes.hpp"
#include "bench.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"
#include "soma/store/readers.hpp"

namespace bench {

namespace {

using text_graph = soma::typed_graph<std::string, double>;

text_graph seed_graph(caf::actor_system& sys) {
  return soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                      >> Score{}.named("score"));
}

struct recorded {
  clock::duration took{};  ///< first forward to flush done
  clock::duration flush{}; ///< of which the final flush()
  std::size_t wrong = 0;   ///< outputs other than expected_output
};

// n forwards into a recorder on a fresh store in `dir`, each followed by its
// loss fact, then flush(). The recorder and the store close before it returns.
recorded record_forwards(caf::actor_system& sys, const text_graph& g, const workload& w,
                         const std::string& dir, std::size_t n) {
  recorded out;
  soma::store s{dir};
  soma::recorder rec{sys, s, {.run = run_id, .summarising = {"loss"}}};
  auto began = clock::now();
  for (std::size_t i = 0; i < n; ++i) {
    out.wrong += g.forward(input_text, {.watching = rec}) != expected_output;
    rec.tell(soma::fact{"loss", {{"value", w.loss[i]}}});
  }
  auto forwarded = clock::now();
  rec.flush();
  auto ended = clock::now();
  out.took = ended - began;
  out.flush = ended - forwarded;
  return out;
}

// Whether the store in `dir` holds one run of n forwards, all ok.
void check_store(row& r, const std::string& dir, std::size_t n) {
  auto all = soma::runs(soma::store{dir});
  if (all.size() != 1 || all[0].run != run_id || all[0].forwards != n || all[0].broke != 0)
    r.problems.push_back("the store holds " + std::to_string(all.size()) + " runs, the first with "
                         + std::to_string(all.empty() ? 0 : all[0].forwards)
                         + " forwards, not one run of " + std::to_string(n));
}

// Tracks the most anonymous memory seen while it lives, every millisecond.
class rss_sampler {
public:
  rss_sampler()
    : thread_([this](std::stop_token stop) {
        while (!stop.stop_requested()) {
          auto now = anon_rss_mib();
          if (now > peak_.load(std::memory_order_relaxed))
            peak_.store(now, std::memory_order_relaxed);
          std::this_thread::sleep_for(std::chrono::milliseconds{1});
        }
      }) {}

  /// Stops sampling; the most it saw.
  double stop() {
    thread_.request_stop();
    if (thread_.joinable())
      thread_.join();
    return peak_.load();
  }

private:
  std::atomic<double> peak_{0};
  std::jthread thread_;
};

// A watcher that does nothing with what it is told: what remains is the cost
// of telling an actor (a detached one has a thread of its own to wake).
caf::behavior dropping(caf::event_based_actor*) {
  return {
    [](const soma::forward_fact&) {},
    [](const soma::fact&) {},
  };
}

} // namespace

writer_row soma_sink(caf::actor_system& sys, const workload& w, const record_options& opt,
                     sink kind) {
  writer_row r{kind == sink::detached ? "b1 soma forwards + detached actor dropping facts"
               : kind == sink::pooled ? "b2 soma forwards + pooled actor dropping facts"
                                      : "b3 soma forwards + callable keeping facts"};
  auto g = seed_graph(sys);
  caf::actor dropper;
  if (kind == sink::detached)
    dropper = sys.spawn<caf::detached>(dropping);
  else if (kind == sink::pooled)
    dropper = sys.spawn(dropping);
  // b3: what a recorder that took facts on the node's thread would do before
  // writing: keep them, a batch at a time.
  std::mutex mtx;
  std::vector<soma::fact> kept;
  std::size_t kept_total = 0;
  auto keep = [&](soma::fact x) {
    std::lock_guard<std::mutex> guard{mtx};
    kept.push_back(std::move(x));
  };
  soma::watching keeping{[&](const soma::fact& x) { keep(x); }};
  measure(r, opt.reps, opt.diagnostic_forwards(), [&](std::size_t n) {
    std::size_t wrong = 0;
    usage_meter usage;
    auto began = clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      soma::fact loss{"loss", {{"value", w.loss[i]}}};
      if (dropper) {
        wrong += g.forward(input_text, {.watching = soma::watcher::forward_aware(dropper)})
                 != expected_output;
        caf::anon_send(dropper, std::move(loss));
        continue;
      }
      wrong += g.forward(input_text, {.watching = keeping}) != expected_output;
      keep(std::move(loss));
      if ((i + 1) % 1000 == 0) {
        std::lock_guard<std::mutex> guard{mtx};
        kept_total += kept.size();
        kept.clear();
      }
    }
    auto took = clock::now() - began;
    usage.add(r, took, n);
    kept_total += kept.size();
    kept.clear();
    if (wrong != 0)
      r.problems.push_back(std::to_string(wrong) + " wrong outputs");
    return took;
  });
  usage_meter::drop_warm_up(r);
  if (dropper)
    caf::anon_send_exit(dropper, caf::exit_reason::user_shutdown);
  // Five facts a forward: three ran, finished, loss.
  std::size_t want = 0;
  want = 5 * (std::max<std::size_t>(opt.diagnostic_forwards() / 10, 1)
              + opt.reps * opt.diagnostic_forwards());
  if (kind == sink::callable && kept_total != want)
    r.problems.push_back("kept " + std::to_string(kept_total) + " facts, not "
                         + std::to_string(want));
  return r;
}

recorded_runs soma_rows(caf::actor_system& sys, const workload& w, const record_options& opt) {
  recorded_runs out;
  auto g = seed_graph(sys);

  auto& b0 = out.b0;
  measure(b0, opt.reps, w.size(), [&](std::size_t n) {
    std::size_t wrong = 0, told = 0;
    usage_meter usage;
    auto began = clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      wrong += g.forward(input_text) != expected_output;
      // Made as in (b), so that b - b0 is the recorder alone (with the
      // making of the engine's facts: unwatched, b0's forwards make none).
      soma::fact loss{"loss", {{"value", w.loss[i]}}};
      told += loss.fields.size();
    }
    auto took = clock::now() - began;
    usage.add(b0, took, n);
    if (wrong != 0 || told != n)
      b0.problems.push_back(std::to_string(wrong) + " wrong outputs");
    return took;
  });
  usage_meter::drop_warm_up(b0);

  auto& b = out.b;
  std::size_t k = 0;
  measure(b, opt.reps, w.size(), [&](std::size_t n) {
    auto dir = scratch(opt, "soma", k++);
    usage_meter usage;
    auto res = record_forwards(sys, g, w, dir, n);
    // The recorder's close (untimed) writes nothing more.
    usage.add(b, res.took, n);
    out.flush_ms.push_back(std::chrono::duration<double, std::milli>(res.flush).count());
    if (res.wrong != 0)
      b.problems.push_back(std::to_string(res.wrong) + " wrong outputs");
    check_store(b, dir, n);
    // Keep the last repetition's store (a full run) for the readers.
    if (!out.kept.empty())
      discard(out.kept);
    out.kept = dir;
    return res.took;
  });
  usage_meter::drop_warm_up(b);
  out.flush_ms.erase(out.flush_ms.begin());
  return out;
}

std::vector<memory_run> recorder_memory(caf::actor_system& sys, const workload& w,
                                        const record_options& opt) {
  auto g = seed_graph(sys);
  std::size_t small = std::max<std::size_t>(w.size() / 10, 1);
  // Unsampled warm-up: what the first recorder allocates once (CAF's and
  // LMDB's first-use state) is not growth.
  {
    auto dir = scratch(opt, "memory", 0);
    (void)record_forwards(sys, g, w, dir, small);
    discard(dir);
  }
  // One baseline for both runs, with free heap given back to the system, so
  // that memory the first run freed cannot hide the second run's growth.
  malloc_trim(0);
  double base = anon_rss_mib();
  std::vector<memory_run> out;
  std::size_t k = 1;
  for (auto n : {small, w.size()}) {
    memory_run m;
    m.forwards = n;
    m.before_mib = base;
    auto dir = scratch(opt, "memory", k++);
    rss_sampler sampler;
    auto res = record_forwards(sys, g, w, dir, n);
    m.peak_mib = std::max(sampler.stop(), anon_rss_mib());
    m.seconds = std::chrono::duration<double>(res.took).count();
    malloc_trim(0);
    m.after_mib = anon_rss_mib();
    if (res.wrong != 0)
      m.problems.push_back(std::to_string(res.wrong) + " wrong outputs");
    discard(dir);
    out.push_back(std::move(m));
  }
  return out;
}

} // namespace bench
