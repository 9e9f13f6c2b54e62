// A claimant process, for tests that need many claimants or one to kill.
//
//   claim_child STORE STUDY [WAIT_MS]
//
// STORE is a directory or soma://HOST:PORT (over mutual TLS when
// $SOMA_TLS_CERT, $SOMA_TLS_KEY and $SOMA_TLS_CA are set). It claims trials of STUDY until
// none waits (waiting WAIT_MS for one to be added, default 0) and runs each:
// a trial's parameters say what it does (docs/trials.md's example does the
// same with a real graph):
//   forwards=N   record N forwards of the seed graph into the trial's run,
//                with loss = 1 / (1 + lr * step) (lr from the trial, else 1)
//   hang=true    in its first attempt, print "holding N" and never end (a
//                claimant to SIGKILL); a later attempt runs as any other
//   fail=TEXT    throw TEXT (the trial breaks)
// Its result is {n: the trial's number, by: this claimant's id}. It prints
// "ready ID" once it is a machine of the fleet, "claimed N" per claim and
// "finished K" at the end, each line flushed.

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include <unistd.h>

#include "seed_nodes.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/soma.hpp"

namespace {

void say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: claim_child STORE STUDY [WAIT_MS]\n");
    return 2;
  }
  std::string study = argv[2];
  auto wait = std::chrono::milliseconds(argc > 3 ? std::atol(argv[3]) : 0);
  // Over mutual TLS when $SOMA_TLS_CERT, $SOMA_TLS_KEY and $SOMA_TLS_CA say
  // so (the store is then soma:// beyond loopback).
  soma::system_config cfg;
  if (auto* cert = std::getenv("SOMA_TLS_CERT"))
    cfg.use_tls({cert, std::getenv("SOMA_TLS_KEY"), std::getenv("SOMA_TLS_CA")});
  caf::actor_system system{cfg};
  auto opened = soma::open_store(system, argv[1], {});
  if (!opened) {
    std::fprintf(stderr, "claim_child: %s\n", soma::describe(opened.error()).c_str());
    return 2;
  }
  std::uint64_t finished = 0;
  {
    soma::claimant c{system, *opened, study, {.reporting = std::chrono::milliseconds(100)}};
    say("ready " + c.id());
    auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                             >> Score{}.named("score"));
    finished = c.run(
      [&](soma::trial& t) -> soma::values {
        say("claimed " + std::to_string(t.number()));
        auto& p = t.params();
        if (auto* hang = p.find("hang"); hang && std::get<bool>(*hang) && t.attempt() == 1) {
          say("holding " + std::to_string(t.number()));
          for (;;)
            ::pause(); // until a signal ends the process: it is never woken to return
        }
        if (auto* fail = p.find("fail"))
          throw std::runtime_error(std::get<std::string>(*fail));
        if (auto* n = p.find("forwards")) {
          double lr = p.find("lr") ? t.param<double>("lr") : 1.0;
          soma::recorder rec{t.system(), t.store(), {.run = t.run(), .summarising = {"loss"}}};
          for (std::int64_t step = 0; step < std::get<std::int64_t>(*n); ++step) {
            g.forward("the quick brown fox jumps", {.watching = rec});
            rec.tell(soma::fact{"loss", {{"value", 1.0 / (1.0 + lr * static_cast<double>(step))}}});
          }
          rec.flush();
        }
        return {{"n", static_cast<std::int64_t>(t.number())}, {"by", c.id()}};
      },
      {.wait = wait});
  }
  say("finished " + std::to_string(finished));
}
