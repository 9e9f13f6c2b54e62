// The one-shot event a blocked caller waits on (soma/graph/parking.hpp):
// released before or after the wait, a deadline that passes, and a waiter
// asleep on its futex woken by a release from another thread. Time is the
// subject of two cases; none waits on a fixed sleep, and every wait has a
// deadline.
#include <boost/test/unit_test.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "soma/graph/parking.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The kernel's state of thread `tid` of this process ('S': asleep, as on a
// futex; 'R': running), read from /proc.
char thread_state(pid_t tid) {
  std::ifstream in{"/proc/self/task/" + std::to_string(tid) + "/stat"};
  std::string stat{std::istreambuf_iterator<char>{in}, {}};
  auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2] : '?';
}

} // namespace

BOOST_AUTO_TEST_SUITE(parking)

BOOST_AUTO_TEST_CASE(released_before_the_wait_it_returns_at_once_and_says_so) {
  soma::detail::parking p;
  BOOST_TEST(!p.released());
  p.release();
  BOOST_TEST(p.released());
  auto began = clock_type::now();
  BOOST_TEST(p.wait_until(began + 10s));
  BOOST_TEST((clock_type::now() - began < 1s)); // at once, not at the deadline
  BOOST_TEST(p.wait_until(clock_type::now() - 1s)); // a passed deadline: still released
}

BOOST_AUTO_TEST_CASE(a_deadline_already_passed_ends_the_wait_unreleased_within_a_second) {
  soma::detail::parking p;
  auto began = clock_type::now();
  BOOST_TEST(!p.wait_until(began - 1s));
  // It spins 40 us before it looks at the deadline; a loaded machine may
  // stretch that, never to a second.
  BOOST_TEST((clock_type::now() - began < 1s));
  BOOST_TEST(!p.released());
  p.release();
  BOOST_TEST(p.wait_until(clock_type::now()));
}

BOOST_AUTO_TEST_CASE(nobody_releases_and_the_wait_ends_at_its_deadline) {
  soma::detail::parking p;
  auto began = clock_type::now();
  BOOST_TEST(!p.wait_until(began + 50ms));
  auto took = clock_type::now() - began;
  BOOST_TEST((took >= 50ms));
  BOOST_TEST((took < 5s), std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
}

BOOST_AUTO_TEST_CASE(a_waiter_asleep_on_its_futex_is_woken_by_a_release_from_another_thread) {
  soma::detail::parking p;
  std::atomic<pid_t> tid{0};
  std::string seen;
  auto waiter = std::async(std::launch::async, [&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    auto released = p.wait_until(clock_type::now() + 30s);
    return std::pair{released, seen}; // what was written before release()
  });
  // Waits, with a deadline, until the waiter sleeps (past its 40 us spin).
  auto until = clock_type::now() + 10s;
  while ((tid == 0 || thread_state(tid) != 'S') && clock_type::now() < until)
    std::this_thread::yield();
  BOOST_REQUIRE_MESSAGE(tid != 0 && thread_state(tid) == 'S', "the waiter never slept");
  BOOST_TEST(!p.released());
  seen = "written before the release";
  auto released_at = clock_type::now();
  p.release();
  BOOST_REQUIRE(waiter.wait_for(10s) == std::future_status::ready);
  auto [released, what] = waiter.get();
  BOOST_TEST(released);
  BOOST_TEST(what == "written before the release");
  BOOST_TEST((clock_type::now() - released_at < 10s)); // woken, not timed out at 30 s
}

BOOST_AUTO_TEST_CASE(two_thousand_events_across_two_threads_each_end_once) {
  constexpr int n = 2000;
  std::vector<soma::detail::parking> events(n);
  std::vector<int> values(n, 0);
  auto waiter = std::async(std::launch::async, [&] {
    int sum = 0;
    for (int i = 0; i < n; ++i) {
      if (!events[i].wait_until(clock_type::now() + 30s))
        return -1 - i;
      sum += values[i];
    }
    return sum;
  });
  for (int i = 0; i < n; ++i) {
    values[i] = i + 1;
    events[i].release();
  }
  BOOST_REQUIRE(waiter.wait_for(60s) == std::future_status::ready);
  BOOST_TEST(waiter.get() == n * (n + 1) / 2);
}

BOOST_AUTO_TEST_SUITE_END()
