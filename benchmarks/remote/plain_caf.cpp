#include "plain_caf.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_remote: plain CAF: %s\n", why.c_str());
  std::exit(1);
}

double micros(clock_type::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

} // namespace

caf_peer::caf_peer(caf::actor_system& sys, const std::string& program,
                   const std::vector<std::string>& caf_args)
  : sys_(sys) {
  int in[2], out[2];
  // Close-on-exec: a soma-node spawned later must not hold the peer's
  // stdin open (the peer would then outlive the driver's end of it).
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    die("no pipe for the peer");
  pid_ = fork();
  if (pid_ < 0)
    die("cannot fork the peer");
  if (pid_ == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    close(in[1]);
    close(out[0]);
    std::vector<char*> args{const_cast<char*>(program.c_str())};
    for (auto& a : caf_args)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(program.c_str(), args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  stdin_ = in[1];
  std::string port;
  char c = 0;
  while (read(out[0], &c, 1) == 1 && c != '\n')
    port.push_back(c);
  close(out[0]);
  if (port.empty())
    die(program + " said no port");
  auto found = sys.middleman().remote_actor("127.0.0.1", static_cast<std::uint16_t>(std::stoi(port)));
  if (!found)
    die("cannot reach the peer at 127.0.0.1:" + port + ": " + sys.render(found.error()));
  actor_ = std::move(*found);
}

caf_peer::~caf_peer() {
  actor_ = nullptr;
  close(stdin_);
  auto t0 = clock_type::now();
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) != pid_) {
    if (clock_type::now() - t0 > std::chrono::seconds(10)) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void caf_peer::reply_bytes(std::size_t bytes) {
  caf::scoped_actor self{sys_};
  self->request(actor_, std::chrono::seconds(30), static_cast<std::uint64_t>(bytes))
    .receive([](std::uint64_t) {}, [&](caf::error& e) { die("the peer did not take its reply size: "
                                                            + sys_.render(e)); });
}

caf::actor plain_relay(caf::actor_system& sys, const caf_peer& peer) {
  return sys.spawn([to = peer.actor()](caf::event_based_actor* self) -> caf::behavior {
    return {
      [self, to](std::string& x) {
        auto rp = self->make_response_promise<std::string>();
        self->request(to, caf::infinite, std::move(x))
          .then([rp](std::string& r) mutable { rp.deliver(std::move(r)); },
                [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
        return rp;
      },
    };
  });
}

double plain_trips(caf::actor_system& sys, const caf::actor& peer, const std::string& payload,
                   std::size_t reply, std::size_t n) {
  caf::scoped_actor self{sys};
  auto one = [&] {
    self->request(peer, std::chrono::seconds(30), payload)
      .receive(
        [&](const std::string& r) {
          if (r.size() != reply)
            die("an answer of " + std::to_string(r.size()) + " bytes, not " + std::to_string(reply));
        },
        [&](caf::error& e) { die("a request failed: " + sys.render(e)); });
  };
  for (std::size_t i = 0; i < n / 10 + 1; ++i)
    one();
  auto t0 = clock_type::now();
  for (std::size_t i = 0; i < n; ++i)
    one();
  return micros(clock_type::now() - t0) / static_cast<double>(n);
}

double plain_in_flight(caf::actor_system& sys, const caf::actor& peer, const std::string& payload,
                       std::size_t reply, std::size_t n, std::size_t k) {
  caf::scoped_actor self{sys};
  std::size_t sent = 0, got = 0;
  auto t0 = clock_type::now();
  for (; sent < std::min(k, n); ++sent)
    self->send(peer, payload);
  while (got < n) {
    self->receive(
      [&](const std::string& r) {
        if (r.size() != reply)
          die("an answer of " + std::to_string(r.size()) + " bytes, not " + std::to_string(reply));
        ++got;
        if (sent < n) {
          self->send(peer, payload);
          ++sent;
        }
      },
      [&](caf::error& e) { die("a request failed: " + sys.render(e)); },
      caf::after(std::chrono::seconds(30)) >> [&] {
        die("no answer for 30 s with " + std::to_string(sent - got) + " in flight");
      });
  }
  return micros(clock_type::now() - t0) / static_cast<double>(n);
}
