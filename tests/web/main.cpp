#define BOOST_TEST_MODULE web
#include <boost/test/unit_test.hpp>
