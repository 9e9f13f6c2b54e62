// Links soma::health alone: the shipped rules judge a store.
#include <cstdio>

#include <soma/health/judge.hpp>
#include <soma/health/rulebook.hpp>
#include <soma/store/store.hpp>

int main(int argc, char** argv) {
  if (argc != 2)
    return 2;
  soma::store s{argv[1], {.read_only = true}};
  auto book = soma::health::rulebook::shipped();
  auto j = soma::health::judge(s, book, {});
  std::printf("health: %zu rules, %zu runs looked at\n", book.rules().size(), j.runs);
  return book.rules().empty() || j.runs == 0 ? 1 : 0;
}
