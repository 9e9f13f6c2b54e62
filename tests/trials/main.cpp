#define BOOST_TEST_MODULE trials
#include <boost/test/unit_test.hpp>
