#define BOOST_TEST_MODULE trials
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "../skipping.hpp"

int main(int argc, char* argv[]) {
  return soma_test::run_with_skips<&init_unit_test>(argc, argv);
}
