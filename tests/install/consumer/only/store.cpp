// Links soma::store alone: a store opened read-only, its runs listed.
#include <cstdio>

#include <soma/store/readers.hpp>
#include <soma/store/store.hpp>

int main(int argc, char** argv) {
  if (argc != 2)
    return 2;
  soma::store s{argv[1], {.read_only = true}};
  auto rows = soma::runs(s);
  std::printf("store: %zu runs\n", rows.size());
  return rows.empty() ? 1 : 0;
}
