#pragma once

// Honest skips for a Boost.Test module. A case that cannot run on this
// machine (no network namespaces, no nft) carries a precondition
// (`*boost::unit_test::precondition(...)`) that says why; Boost.Test then
// skips it instead of running it. A run in which nothing ran and a
// precondition skipped something exits with `skipped_exit_code`, which the
// module's CTest tests declare as SKIP_RETURN_CODE (tests/CMakeLists.txt):
// CTest lists it as "Not Run" rather than counting it as passed.
//
// A module's main.cpp defines BOOST_TEST_MODULE and BOOST_TEST_NO_MAIN,
// includes this, and hands its init function to run_with_skips.

#include <boost/test/tree/observer.hpp>
#include <boost/test/tree/test_unit.hpp>
#include <boost/test/unit_test.hpp>

#include <iostream>

namespace soma_test {

/// What a run in which every selected case was skipped exits with (the
/// automake convention, as tests/cli/damage_test.py uses it).
inline constexpr int skipped_exit_code = 77;

/// Counts the cases that ran and the ones a precondition skipped, and says
/// each skip on stdout whatever the log level.
class skip_counter : public boost::unit_test::test_observer {
public:
  void test_unit_start(const boost::unit_test::test_unit& tu) override {
    if (tu.p_type == boost::unit_test::TUT_CASE)
      ++ran_;
  }

  void test_unit_skipped(const boost::unit_test::test_unit& tu,
                         boost::unit_test::const_string reason) override {
    // "disabled" is a case a --run_test filter left out: not a skip.
    if (tu.p_type != boost::unit_test::TUT_CASE || reason == "disabled")
      return;
    ++skipped_;
    std::cout << "SKIPPED: " << tu.full_name() << ": " << reason << std::endl;
  }

  [[nodiscard]] int ran() const { return ran_; }
  [[nodiscard]] int skipped() const { return skipped_; }

private:
  int ran_ = 0;
  int skipped_ = 0;
};

namespace detail {

inline skip_counter& counter() {
  static skip_counter c; // a function-local static: no global constructor
  return c;
}

} // namespace detail

/// Runs the module's tests as Boost.Test's own main would; its exit code,
/// except that a run that ran no case and skipped at least one exits with
/// skipped_exit_code.
template <bool (*Init)()>
int run_with_skips(int argc, char* argv[]) {
  auto init = [] {
    boost::unit_test::framework::register_observer(detail::counter());
    return Init();
  };
  int rc = boost::unit_test::unit_test_main(+init, argc, argv);
  auto& c = detail::counter();
  if (rc == 0 && c.ran() == 0 && c.skipped() > 0) {
    std::cout << "no case ran: " << c.skipped() << " skipped (exit " << skipped_exit_code
              << ", which CTest reports as Not Run)" << std::endl;
    return skipped_exit_code;
  }
  return rc;
}

} // namespace soma_test
