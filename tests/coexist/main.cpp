#define BOOST_TEST_MODULE coexist
#include <boost/test/unit_test.hpp>
