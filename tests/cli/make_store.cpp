// make_store: records the runs the cli tests read back, with the seed's graph
// (tokenize >> embed >> score) and soma::recorder, into a directory.
//
//   make_store DIR            run "tuesday": 12 forwards, a loss told after
//                             each (2.0 * 0.93^step + 0.1, as the seed does),
//                             summarising {"loss"};
//                             run "plain": 3 forwards, nothing summarised,
//                             forward 1 breaks (no words to score), an acc
//                             told after each (0.5, 0.25, 0.75).
//   make_store DIR --damaged  run "bad": 3 forwards, then forward 1's record
//                             and forward 2's fact blob overwritten with bytes
//                             that do not decode.

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "seed_nodes.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"

namespace {

template <class Graph>
void record_tuesday(caf::actor_system& sys, const soma::store& s, const Graph& g) {
  soma::recorder rec{sys, s, {.run = "tuesday", .summarising = {"loss"}, .overwrite = true}};
  double loss = 2.0;
  for (int step = 0; step < 12; ++step) {
    g.forward("the quick brown fox jumps", {.watching = rec});
    rec.tell(soma::fact{"loss", {{"value", loss + 0.1}}});
    loss *= 0.93;
  }
  rec.flush();
}

template <class Graph>
void record_plain(caf::actor_system& sys, const soma::store& s, const Graph& g) {
  soma::recorder rec{sys, s, {.run = "plain", .overwrite = true}};
  const char* texts[] = {"a bc", "", "the end"};
  const double accs[] = {0.5, 0.25, 0.75};
  for (int step = 0; step < 3; ++step) {
    try {
      g.forward(texts[step], {.watching = rec});
    } catch (const soma::forward_error&) {
      // Expected for the empty text: the record says "broke".
    }
    rec.tell(soma::fact{"acc", {{"value", accs[step]}}});
  }
  rec.flush();
}

template <class Graph>
void record_damaged(caf::actor_system& sys, const soma::store& s, const Graph& g) {
  {
    soma::recorder rec{sys, s, {.run = "bad", .overwrite = true}};
    for (int step = 0; step < 3; ++step)
      g.forward("some words here", {.watching = rec});
    rec.flush();
  }
  // Whole words that are no Cap'n Proto message: for the record, a segment
  // table claiming 2^31 segments; for the blob, one segment whose root
  // pointer points far outside it.
  using soma::detail::db;
  using namespace std::string_view_literals;
  auto& env = s.env();
  env.write([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    env.put(txn, dbi(db::records), soma::detail::record_key("bad", 1),
            "\xff\xff\xff\x7fjunk"sv);
    env.put(txn, dbi(db::facts), soma::detail::record_key("bad", 2),
            "\0\0\0\0\x01\0\0\0\xfc\xff\xff\x7f\x01\0\x01\0"sv);
  });
}

} // namespace

// Kept outputs: tokenize (frozen "1") and embed (frozen "2") cached, three
// texts, so six entries, three of each node.
void keep_outputs(caf::actor_system& sys, const soma::store& s) {
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize").frozen("1").cached()
                                        >> Embed{}.named("embed").frozen("2").cached()
                                        >> Score{}.named("score"));
  for (auto text : {"a", "a bb", "a bb ccc"})
    g.forward(text, {.store = s});
}

int main(int argc, char** argv) {
  std::string_view mode = argc == 3 ? argv[2] : "";
  if (argc < 2 || argc > 3 || (argc == 3 && mode != "--damaged" && mode != "--cached")) {
    std::fprintf(stderr, "usage: make_store DIR [--damaged|--cached]\n");
    return 2;
  }
  try {
    soma::system_config cfg;
    caf::actor_system sys{cfg};
    auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                          >> Score{}.named("score"));
    soma::store s{argv[1]};
    if (mode == "--damaged") {
      record_damaged(sys, s, g);
    } else if (mode == "--cached") {
      keep_outputs(sys, s);
    } else {
      record_tuesday(sys, s, g);
      record_plain(sys, s, g);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_store: %s\n", e.what());
    return 1;
  }
  return 0;
}
