// A program's own SIGBUS and SIGSEGV handlers beside soma, in one process.
// soma's fault handler (store/soma/store/detail/guard.cpp) turns a fault
// inside its own reads of a damaged store into an error; it is in place
// only while the process has a store open, hands every other fault to the
// program's handler as the kernel would have called it, and once no store
// is open the program's handler is the process's again.

#include <boost/test/unit_test.hpp>

#include <csetjmp>
#include <csignal>
#include <cstddef>
#include <fstream>

#include <pthread.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include "soma/store/detail/guard.hpp"
#include "soma_at_work.hpp"

using namespace soma_test;

namespace {

// What the program's handler saw. It jumps back to `landing`.
sigjmp_buf* landing = nullptr;
volatile sig_atomic_t faults = 0;
void* volatile fault_at = nullptr;
volatile sig_atomic_t usr2_blocked = 0, bus_blocked = 0;

void programs_handler(int, siginfo_t* info, void*) {
  faults = faults + 1;
  fault_at = info->si_addr;
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  usr2_blocked = sigismember(&now, SIGUSR2);
  bus_blocked = sigismember(&now, SIGBUS);
  siglongjmp(*landing, 1);
}

// The program's handler, with SIGUSR2 in its mask.
struct sigaction programs() {
  struct sigaction sa {};
  sa.sa_sigaction = programs_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGUSR2);
  return sa;
}

bool handled_by_program(int sig) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == programs_handler;
}

// A one-byte file mapped two pages long: touching the second page is a
// SIGBUS, as a damaged LMDB page is inside mdb_cursor_get.
class short_map {
public:
  explicit short_map(const std::string& file) {
    { std::ofstream out{file}; out << "x"; }
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    map_ = static_cast<const volatile char*>(::mmap(nullptr, 2 * page_, PROT_READ, MAP_SHARED, fd, 0));
    ::close(fd);
  }
  ~short_map() {
    if (map_ != MAP_FAILED)
      ::munmap(const_cast<char*>(map_), 2 * page_);
  }
  short_map(const short_map&) = delete;
  short_map& operator=(const short_map&) = delete;

  [[nodiscard]] bool mapped() const { return map_ != MAP_FAILED; }
  [[nodiscard]] const volatile char* past() const { return map_ + page_; }
  void touch_past() const { seen_ = *past(); }

private:
  std::size_t page_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const volatile char* map_ = static_cast<const volatile char*>(MAP_FAILED);
  mutable char seen_ = 0;
};

// Touches the page past the file's end outside any soma read; whether the
// program's handler took the fault (it jumps back here).
bool programs_handler_took_a_fault(const short_map& m) {
  sigjmp_buf here;
  landing = &here;
  if (sigsetjmp(here, 1) == 0) {
    m.touch_past();
    return false;
  }
  return true;
}

} // namespace

BOOST_AUTO_TEST_SUITE(coexist_signals)

BOOST_AUTO_TEST_CASE(the_programs_fault_handlers_get_its_faults_beside_soma_and_are_back_once_no_store_is_open) {
  scratch tmp;
  short_map m{tmp / "short"};
  BOOST_REQUIRE(m.mapped());
  auto mine = programs();
  struct sigaction frameworks_bus {}, frameworks_segv {};
  sigaction(SIGBUS, &mine, &frameworks_bus);
  sigaction(SIGSEGV, &mine, &frameworks_segv);
  faults = 0;
  {
    soma_at_work soma; // a store of this process, open
    // While a store is open, soma's handler is in place, before the program's ...
    BOOST_TEST(!handled_by_program(SIGBUS));
    BOOST_TEST(!handled_by_program(SIGSEGV));
    // ... and hands it the program's own fault as the kernel would have:
    // the address, the handler's mask, the signal blocked meanwhile.
    BOOST_TEST(programs_handler_took_a_fault(m));
    BOOST_TEST(faults == 1);
    BOOST_TEST(fault_at == static_cast<const void*>(const_cast<const char*>(m.past())));
    BOOST_TEST(usr2_blocked == 1);
    BOOST_TEST(bus_blocked == 1);
    // A fault inside a read of soma's is soma's: an answer, and the
    // program's handler hears nothing of it.
    auto touch = [&] { m.touch_past(); };
    BOOST_TEST(!soma::detail::guarded(touch));
    BOOST_TEST(faults == 1);
    BOOST_TEST(soma.goes_on());
  }
  // No store open: the program's handlers are the process's again, and
  // take the fault straight from the kernel.
  BOOST_TEST(handled_by_program(SIGBUS));
  BOOST_TEST(handled_by_program(SIGSEGV));
  BOOST_TEST(programs_handler_took_a_fault(m));
  BOOST_TEST(faults == 2);
  BOOST_TEST(usr2_blocked == 1);
  sigaction(SIGBUS, &frameworks_bus, nullptr);
  sigaction(SIGSEGV, &frameworks_segv, nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
