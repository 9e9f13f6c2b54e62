// make_figure_store DIR: the runs plot_options_test.sh draws, written
// straight into a store at DIR as a recorder leaves them (writing.hpp):
//
//   once   1 forward:   loss 1e12
//   three  3 forwards:  loss 3e12, 2e12, 2.5e12; acc 1e-6, 2e-6, 1.5e-6; its
//                       first sent embed to w1: 800 ms of work, 2.3 ms waiting
//   signs  6 forwards:  loss 1e12, 0, 1e3, -5, 1e-6, 2e-6 (two a log axis leaves out)

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "writing.hpp"

namespace {

std::vector<soma::fact> told(double loss, const double* acc = nullptr) {
  std::vector<soma::fact> facts{{"loss", {{"value", loss}}}};
  if (acc)
    facts.push_back({"acc", {{"value", *acc}}});
  return facts;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_figure_store DIR\n");
    return 2;
  }
  try {
    soma::store s{argv[1]};
    soma_test::write_run(s, "once", {told(1e12)});
    const double accs[] = {1e-6, 2e-6, 1.5e-6};
    auto first = told(3e12, &accs[0]);
    first.push_back({"ran", {{"node", "embed"}, {"began_us", 10}, {"took_us", 800'000}, {"host", "w1"}}});
    first.push_back({"left", {{"host", "w1"}, {"began_us", 0}, {"took_us", 802'289}}});
    soma_test::write_run(s, "three", {first, told(2e12, &accs[1]), told(2.5e12, &accs[2])});
    soma_test::write_run(s, "signs", {told(1e12), told(0), told(1e3), told(-5), told(1e-6), told(2e-6)});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_figure_store: %s\n", e.what());
    return 1;
  }
  return 0;
}
