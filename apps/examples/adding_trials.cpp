// Adding trials (docs/trials.md): a study of learning rates grown three
// ways, each in one write transaction: trials written out, a grid, and
// seeded samples. Then the trials as the store keeps them, waiting for
// `soma-node --claim lr`.
//
//   adding_trials [STORE]     (default: a fresh directory under $TMPDIR, else /tmp)

#include <cstdint>
#include <cstdio>
#include <string>

#include "soma/store/trials.hpp"
#include "soma/sweep.hpp"
#include "store_dir.hpp"

int main(int argc, char** argv) {
  auto dir = store_dir(argc, argv, "trials");

  //! [added]
  soma::store s{dir};
  // Trials written out; "lr_sweep" is the function `soma-node --claim` runs
  // when told no other (used only when the study is new).
  soma::add_trials(s, "lr", {{{"lr", 0.1}}, {{"lr", 0.01}}}, "lr_sweep");
  // Every combination, the first axis changing slowest.
  soma::add_trials(s, "lr", soma::grid({{"lr", {0.5, 0.2}}, {"depth", {std::int64_t{2}, std::int64_t{4}}}}));
  // 20 draws from seed 7: the same seed draws the same trials.
  soma::add_trials(s, "lr", soma::samples(20, 7, {{"lr", soma::sampled::log_uniform(1e-4, 1e-1)},
                                                  {"depth", soma::sampled::integers(2, 8)}}));
  //! [added]

  auto study = soma::study(s, "lr");
  std::printf("study %s: %llu trials, function %s\n", study.name.c_str(),
              static_cast<unsigned long long>(study.trials), study.function.c_str());
  for (auto& t : soma::trials(s, "lr"))
    if (t.number < 7)
      std::printf("  %llu %s: %s\n", static_cast<unsigned long long>(t.number), to_string(t.state),
                  t.params.text().c_str());
}
