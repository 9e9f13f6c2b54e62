#define BOOST_TEST_MODULE cli_units
#include <boost/test/unit_test.hpp>
