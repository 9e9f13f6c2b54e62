#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "soma/print.hpp"

namespace {

std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
    out.append(buf, n);
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(print)

BOOST_AUTO_TEST_CASE(one_json_object_per_line) {
  auto* f = std::tmpfile();
  BOOST_REQUIRE(f);
  soma::printer p{f};
  p(soma::fact{"ran", {{"node", "a"}, {"began_us", 1}, {"took_us", 2}}});
  p(soma::fact{"finished", {{"took_us", 3}}});
  BOOST_TEST(read_all(f)
             == "{\"fact\":\"ran\",\"node\":\"a\",\"began_us\":\"1\",\"took_us\":\"2\"}\n"
                "{\"fact\":\"finished\",\"took_us\":\"3\"}\n");
  std::fclose(f);
}

BOOST_AUTO_TEST_CASE(lines_from_many_threads_never_interleave) {
  auto* f = std::tmpfile();
  BOOST_REQUIRE(f);
  soma::printer p{f};
  std::string long_text(3000, 'x');
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i)
        p(soma::fact{"note", {{"thread", t}, {"text", long_text}}});
    });
  for (auto& t : threads)
    t.join();
  auto all = read_all(f);
  std::fclose(f);
  size_t lines = 0;
  for (size_t pos = 0; pos < all.size();) {
    auto end = all.find('\n', pos);
    BOOST_REQUIRE(end != std::string::npos);
    auto line = all.substr(pos, end - pos);
    BOOST_REQUIRE(line.starts_with("{\"fact\":\"note\",\"thread\":\""));
    BOOST_REQUIRE(line.ends_with(long_text + "\"}"));
    ++lines;
    pos = end + 1;
  }
  BOOST_TEST(lines == 800u);
}

BOOST_AUTO_TEST_SUITE_END()
