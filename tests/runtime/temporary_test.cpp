// soma::detail::make_temporary_directory: where soma makes what it keeps for
// a while (a worker's code, a served store's copy) follows $TMPDIR.

#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "soma/detail/temporary.hpp"

namespace {

namespace fs = std::filesystem;

// Sets $TMPDIR for one test, and puts back what it was.
class tmpdir_set {
public:
  explicit tmpdir_set(const std::string& to) {
    if (auto* was = std::getenv("TMPDIR"))
      was_ = was;
    ::setenv("TMPDIR", to.c_str(), 1);
  }
  ~tmpdir_set() {
    if (was_)
      ::setenv("TMPDIR", was_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
  tmpdir_set(const tmpdir_set&) = delete;
  tmpdir_set& operator=(const tmpdir_set&) = delete;

private:
  std::optional<std::string> was_;
};

} // namespace

BOOST_AUTO_TEST_SUITE(temporary)

BOOST_AUTO_TEST_CASE(made_where_tmpdir_says_for_this_user_only) {
  auto base = fs::temp_directory_path() / ("soma-temporary-test-" + std::to_string(::getpid()));
  fs::create_directories(base);
  std::string made;
  {
    tmpdir_set here{base.string()};
    made = soma::detail::make_temporary_directory("soma-x");
  }
  BOOST_TEST(fs::path{made}.parent_path() == base);
  BOOST_TEST(fs::path{made}.filename().string().starts_with("soma-x-"));
  BOOST_TEST(fs::is_directory(made));
  struct stat st{};
  BOOST_REQUIRE(::stat(made.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0700);
  fs::remove_all(base);
}

BOOST_AUTO_TEST_CASE(a_tmpdir_that_is_not_there_is_named) {
  tmpdir_set nowhere{"/nonexistent/soma-tmp"};
  try {
    (void)soma::detail::make_temporary_directory("soma-x");
    BOOST_FAIL("made a directory under a TMPDIR that is not there");
  } catch (const std::runtime_error& e) {
    std::string said = e.what();
    BOOST_TEST(said.find("/nonexistent/soma-tmp") != std::string::npos, said);
    BOOST_TEST(said.find("TMPDIR") != std::string::npos, said);
  }
}

BOOST_AUTO_TEST_SUITE_END()
