#define BOOST_TEST_MODULE remote
#include <boost/test/unit_test.hpp>
