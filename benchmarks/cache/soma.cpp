// (b)-(e) soma: one node costing 1 ms, uncached, recalled from the store, and
// missed (ran + kept), each forward blocking from this thread; then (p) the
// pieces of a recall, called here without actors.

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>

#include <caf/actor_system.hpp>

#include "bench.hpp"
#include "soma/codec.hpp"
#include "soma/soma.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/store.hpp"

namespace bench {

namespace {

/// The node: makes its value from x, then busy-waits until 1 ms has passed.
template <class V>
struct Slow : soma::node<Slow<V>, std::int64_t, typename V::type> {
  typename V::type forward(const std::int64_t& x, soma::context&) override {
    auto began = clock::now();
    auto v = V::make(x);
    spend_rest(began);
    return v;
  }
};

/// What one forward's facts said.
struct tally {
  unsigned ran = 0, recalled = 0, kept = 0, finished = 0, other = 0;
  std::int64_t took_us = 0; ///< of its `recalled` or `kept`
  std::uint64_t bytes = 0;  ///< of its `recalled` or `kept`
  bool unreadable = false;  ///< a took_us or bytes that is not a whole number

  void clear() { *this = {}; }

  void read(const soma::fact& f) {
    auto number = [this](const soma::scalar& s) {
      if (!s.is_integer())
        unreadable = true;
      return s.integer_or(0);
    };
    if (f.name == "ran") {
      ++ran;
    } else if (f.name == "finished") {
      ++finished;
    } else if (f.name == "recalled" || f.name == "kept") {
      ++(f.name == "kept" ? kept : recalled);
      took_us = number(f["took_us"]);
      bytes = static_cast<std::uint64_t>(number(f["bytes"]));
    } else {
      ++other;
    }
  }

  /// What is wrong with a forward expected to say `ran` `r` times, `recalled`
  /// `c` times and `kept` `k` times, its output and bytes aside; empty if
  /// nothing.
  [[nodiscard]] std::string wrong(unsigned r, unsigned c, unsigned k) const {
    if (ran == r && recalled == c && kept == k && finished == 1 && other == 0 && !unreadable)
      return {};
    return "a forward said ran x" + std::to_string(ran) + ", recalled x" + std::to_string(recalled)
           + ", kept x" + std::to_string(kept) + ", finished x" + std::to_string(finished)
           + ", other x" + std::to_string(other) + (unreadable ? ", unreadable numbers" : "")
           + "; wanted ran x" + std::to_string(r) + ", recalled x" + std::to_string(c)
           + ", kept x" + std::to_string(k) + ", finished x1";
  }
};

/// Records a problem once per kind, with how often it happened.
void note(cache_row& r, const std::string& what) {
  if (std::find(r.problems.begin(), r.problems.end(), what) == r.problems.end())
    r.problems.push_back(what);
}

/// Drops the warm-up's reading (the first) once bench::measure is done.
void took_without_warm_up(cache_row& r, std::vector<double>& took) {
  if (!took.empty())
    r.took.assign(took.begin() + 1, took.end());
}

/// Times `k` calls of make(i), i in [0, k), in batches of `batch`: the clock
/// runs over a batch, whose results are kept until it stops and are then
/// checked and destroyed, untimed.
template <class T, class Make, class Check>
clock::duration batched(std::size_t k, std::size_t batch, Make&& make, Check&& check) {
  std::vector<std::optional<T>> out(std::min(batch, k));
  clock::duration took{};
  for (std::size_t done = 0; done < k;) {
    auto m = std::min(batch, k - done);
    auto began = clock::now();
    for (std::size_t i = 0; i < m; ++i)
      out[i].emplace(make(done + i));
    took += clock::now() - began;
    for (std::size_t i = 0; i < m; ++i) {
      check(*out[i]);
      out[i].reset();
    }
    done += m;
  }
  return took;
}

template <class V>
section soma_rows(caf::actor_system& sys, const cache_options& opt, const std::string& name) {
  using T = typename V::type;
  constexpr bool small = V::raw_bytes < (std::size_t{64} << 10);
  const std::size_t recalls = small ? opt.recalls : opt.big;
  const std::size_t pieces = small ? opt.recalls * 10 : opt.big;
  const std::size_t batch = small ? 256 : 1;

  section s;
  s.title = V::title;
  s.raw_bytes = V::raw_bytes;
  // The input every recall row asks for; misses take fresh ones from 1000 on.
  constexpr std::int64_t hit_x = 7;
  std::int64_t fresh_x = 1000;
  const std::string encoded = soma::encode(V::make(hit_x));
  s.encoded_bytes = encoded.size();

  soma::store kept{opt.dir};
  soma::cache_clear(kept, name); // a --dir used before may hold its entries
  auto uncached = soma::graph::somatize(sys, Slow<V>{}.named(name));
  auto cached = soma::graph::somatize(sys, Slow<V>{}.named(name).frozen().cached());

  tally t;
  soma::forward_options with_store{.watching = [&t](const soma::fact& f) { t.read(f); },
                                   .store = kept};
  soma::forward_options without_store{.watching = [&t](const soma::fact& f) { t.read(f); }};

  // One blocking forward of x, timed alone; checked after the clock stopped.
  auto forward = [&](cache_row& r, const soma::typed_graph<std::int64_t, T>& g,
                     const soma::forward_options& fo, std::int64_t x, unsigned ran,
                     unsigned recalled, unsigned kept_n) {
    t.clear();
    auto began = clock::now();
    T out = g.forward(x, fo);
    auto took = clock::now() - began;
    if (!V::right(out, x))
      note(r, "an output was wrong");
    if (auto w = t.wrong(ran, recalled, kept_n); !w.empty())
      note(r, w);
    if ((recalled || kept_n) && t.bytes != encoded.size())
      note(r, "a fact said bytes " + std::to_string(t.bytes) + ", not the "
                + std::to_string(encoded.size()) + " encoded");
    return took;
  };

  if (opt.wants('b')) {
    cache_row b{"b  1 ms node, uncached: forward"};
    b.bytes = V::raw_bytes;
    measure_faults(b, opt.reps, opt.computes, [&](std::size_t k) {
      clock::duration took{};
      for (std::size_t i = 0; i < k; ++i)
        took += forward(b, uncached, without_store, fresh_x++, 1, 0, 0);
      return took;
    });
    s.rows.push_back(std::move(b));
  }

  // Kept once, by a forward that ran: every recall row recalls it.
  {
    cache_row first{"c  the warm-up forward that kept the value"};
    forward(first, cached, with_store, hit_x, 1, 0, 1);
    if (!first.problems.empty()) {
      s.rows.push_back(std::move(first));
      return s;
    }
  }

  if (opt.wants('c')) {
    cache_row c{"c  recall: blocking forward (took_us: recalled)"};
    c.bytes = V::raw_bytes;
    std::vector<double> took_us;
    measure_faults(c, opt.reps, recalls, [&](std::size_t k) {
      clock::duration took{};
      double sum = 0;
      for (std::size_t i = 0; i < k; ++i) {
        took += forward(c, cached, with_store, hit_x, 0, 1, 0);
        sum += static_cast<double>(t.took_us);
      }
      took_us.push_back(sum / static_cast<double>(k));
      return took;
    });
    took_without_warm_up(c, took_us);
    s.rows.push_back(std::move(c));
  }

  if (opt.wants('p')) {
    // The pieces of a recall, as the node actor calls them (run_cached in
    // actors/soma/graph/node_actor.hpp), with the identity the graph keeps
    // under.
    auto& d = cached.declaration().front();
    soma::detail::cache_identity who{d.type, d.name, *d.frozen};
    const std::string key = soma::detail::cache_key(who, soma::encode(hit_x));
    const T value = V::make(hit_x);

    cache_row enc{"p  encode the value"};
    enc.bytes = V::raw_bytes;
    measure_faults(enc, opt.reps, pieces, [&](std::size_t k) {
      return batched<std::string>(
        k, batch, [&](std::size_t) { return soma::encode(value); },
        [&](const std::string& b) {
          if (b != encoded)
            note(enc, "encode gave other bytes than before");
        });
    });
    s.rows.push_back(std::move(enc));

    cache_row dec{"p  decode the value"};
    dec.bytes = V::raw_bytes;
    measure_faults(dec, opt.reps, pieces, [&](std::size_t k) {
      return batched<T>(
        k, batch, [&](std::size_t) { return soma::decode<T>(encoded); },
        [&](const T& v) {
          if (!V::right(v, hit_x))
            note(dec, "decode gave a wrong value");
        });
    });
    s.rows.push_back(std::move(dec));

    cache_row key_row{"p  encode the input + cache_key (SHA-256)"};
    measure_faults(key_row, opt.reps, pieces, [&](std::size_t k) {
      return batched<std::string>(
        k, batch, [&](std::size_t) { return soma::detail::cache_key(who, soma::encode(hit_x)); },
        [&](const std::string& x) {
          if (x != key)
            note(key_row, "cache_key gave another key");
        });
    });
    s.rows.push_back(std::move(key_row));

    cache_row get{"p  detail::cache_get of the entry"};
    get.bytes = V::raw_bytes;
    measure_faults(get, opt.reps, pieces, [&](std::size_t k) {
      return batched<std::optional<std::string>>(
        k, batch, [&](std::size_t) { return soma::detail::cache_get(kept, key, who); },
        [&](const std::optional<std::string>& x) {
          if (!x)
            note(get, "cache_get found no entry under the graph's key");
          else if (*x != encoded)
            note(get, "cache_get gave other bytes than were kept");
        });
    });
    s.rows.push_back(std::move(get));

    cache_row steps{"p  recall's steps in a row (what took_us times)"};
    steps.bytes = V::raw_bytes;
    measure_faults(steps, opt.reps, pieces, [&](std::size_t k) {
      return batched<T>(
        k, batch,
        [&](std::size_t) {
          auto input = soma::encode(hit_x);
          auto at = soma::detail::cache_key(who, input);
          auto hit = soma::detail::cache_get(kept, at, who);
          return hit ? soma::decode<T>(*hit) : T{};
        },
        [&](const T& v) {
          if (!V::right(v, hit_x))
            note(steps, "the steps recalled a wrong value");
        });
    });
    s.rows.push_back(std::move(steps));
  }

  if (opt.wants('e')) {
    cache_row e{"e  miss, fresh input: forward (took_us: kept)"};
    e.bytes = V::raw_bytes;
    std::vector<double> took_us;
    measure_faults(e, opt.reps, opt.computes, [&](std::size_t k) {
      clock::duration took{};
      double sum = 0;
      for (std::size_t i = 0; i < k; ++i) {
        auto x = fresh_x++;
        took += forward(e, cached, with_store, x, 1, 0, 1);
        sum += static_cast<double>(t.took_us);
      }
      took_us.push_back(sum / static_cast<double>(k));
      // Untimed: the next repetition keeps into an emptied cache, and the
      // store stays small.
      soma::cache_clear(kept, name);
      return took;
    });
    took_without_warm_up(e, took_us);
    s.rows.push_back(std::move(e));
  }
  return s;
}

} // namespace

section soma_small(caf::actor_system& sys, const cache_options& opt) {
  return soma_rows<small_value>(sys, opt, "small");
}

section soma_big_vector(caf::actor_system& sys, const cache_options& opt) {
  return soma_rows<big_vector>(sys, opt, "big_vector");
}

section soma_big_text(caf::actor_system& sys, const cache_options& opt) {
  return soma_rows<big_text>(sys, opt, "big_text");
}

} // namespace bench
