#define BOOST_TEST_MODULE draw
#include <boost/test/unit_test.hpp>
