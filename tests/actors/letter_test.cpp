// Letters (runtime/soma/detail/letter.hpp): a fact told to an actor travels
// in a mailbox element that goes back to a pool when the actor is done with
// it, keeping its value's capacity.

#include <boost/test/unit_test.hpp>

#include <string>
#include <thread>
#include <vector>

#include <caf/event_based_actor.hpp>

#include "deterministic.hpp"
#include "soma/detail/letter.hpp"
#include "soma/fact.hpp"
#include "soma/forward_state.hpp"
#include "soma/watching.hpp"

using namespace soma_test;
using soma::detail::letter;
using soma::detail::letter_batch;
using soma::detail::letters_in_depot;
using soma::detail::letters_on_this_thread;
using soma::detail::take_letter;

namespace {

soma::fact ran(std::string node, std::int64_t took) {
  return {"ran", {{"node", std::move(node)}, {"began_us", 1}, {"took_us", took}}};
}

// A forward that only says facts: its end is not the subject.
struct saying : soma::detail::forward_state {
  using forward_state::forward_state;
  void fail(std::string, std::string, caf::local_actor*) override {}
};

// Gives `l` back as CAF does when its receiver is done with it.
void dispose(letter<soma::fact>* l) {
  caf::mailbox_element_ptr{l}.reset();
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(letters, deterministic_fixture)

BOOST_AUTO_TEST_CASE(a_fact_told_in_a_letter_arrives_whole_and_its_letter_is_taken_next_with_its_capacity) {
  std::vector<soma::fact> got;
  auto watcher = sys.spawn([&](caf::event_based_actor*) -> caf::behavior {
    return {[&](const soma::fact& x) { got.push_back(x); }};
  });
  sched.run();
  auto* l = take_letter<soma::fact>();
  auto taken = letters_on_this_thread<soma::fact>();
  l->value = ran("embed", 318);
  auto* sent = l;
  caf::actor_cast<caf::abstract_actor*>(watcher)->enqueue(caf::mailbox_element_ptr{l}, nullptr);
  BOOST_REQUIRE(sched.has_job());
  sched.run_once();
  BOOST_REQUIRE_EQUAL(got.size(), 1u);
  BOOST_TEST(got[0] == ran("embed", 318));
  // The actor ran on this thread: the letter is back on its shelf, and it
  // is the next one taken, with room for three fields and no envelope.
  BOOST_TEST(letters_on_this_thread<soma::fact>() == taken + 1);
  auto* again = take_letter<soma::fact>();
  BOOST_TEST(again == sent);
  BOOST_TEST(again->value.fields.capacity() >= 3u);
  BOOST_TEST(!again->sender);
  BOOST_TEST(again->stages.empty());
  BOOST_TEST(!again->mid.is_request());
  BOOST_TEST(again->next == nullptr);
  again->value = ran("tokenize", 7);
  caf::actor_cast<caf::abstract_actor*>(watcher)->enqueue(caf::mailbox_element_ptr{again}, nullptr);
  BOOST_REQUIRE(sched.has_job());
  sched.run_once();
  BOOST_REQUIRE_EQUAL(got.size(), 2u);
  BOOST_TEST(got[1] == ran("tokenize", 7));
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(a_letter_whose_fact_holds_a_long_text_is_deleted_not_kept) {
  auto* l = take_letter<soma::fact>();
  auto taken = letters_on_this_thread<soma::fact>();
  l->value = soma::fact{"loss", {{"note", std::string(1000, 'x')}}};
  dispose(l);
  BOOST_TEST(letters_on_this_thread<soma::fact>() == taken);
  // A short text with room for a long one (moved in, not copied) too.
  l = take_letter<soma::fact>();
  std::string roomy(1000, 'x');
  roomy.resize(3);
  l->value = soma::fact{"loss", {}};
  l->value.fields.emplace_back("note", std::move(roomy));
  BOOST_REQUIRE(l->value.fields[0].value.text_capacity() >= 1000u);
  auto fewer = letters_on_this_thread<soma::fact>();
  dispose(l);
  BOOST_TEST(letters_on_this_thread<soma::fact>() == fewer);
  // A long key or name too.
  l = take_letter<soma::fact>();
  l->value = soma::fact{std::string(1000, 'n'), {}};
  auto less = letters_on_this_thread<soma::fact>();
  dispose(l);
  BOOST_TEST(letters_on_this_thread<soma::fact>() == less);
}

BOOST_AUTO_TEST_CASE(a_pool_keeps_facts_of_a_few_short_fields_and_no_other) {
  using soma::detail::worth_keeping;
  BOOST_TEST(worth_keeping(ran("embed", 318)));
  BOOST_TEST(worth_keeping(soma::fact{"loss", {{"value", 2.1}, {"note", std::string(256, 'x')}}}));
  BOOST_TEST(!worth_keeping(soma::fact{"loss", {{"note", std::string(257, 'x')}}}));
  BOOST_TEST(!worth_keeping(soma::fact{"loss", {{std::string(300, 'k'), 1}}}));
  BOOST_TEST(!worth_keeping(soma::fact{std::string(300, 'n'), {}}));
  soma::fact many{"many", {}};
  for (int i = 0; i < 17; ++i)
    many.fields.emplace_back("k" + std::to_string(i), i);
  BOOST_TEST(!worth_keeping(many));
  // A forward's list: room for 64 facts at most (the recorder's spare lists
  // and whole-forward letters alike).
  std::vector<soma::fact> list;
  list.reserve(64);
  list.push_back(ran("embed", 1));
  BOOST_TEST(worth_keeping(list));
  list.push_back(many);
  BOOST_TEST(!worth_keeping(list));
  std::vector<soma::fact> roomy;
  roomy.reserve(65);
  BOOST_TEST(!worth_keeping(roomy));
}

BOOST_AUTO_TEST_CASE(letters_given_back_on_a_thread_that_ends_reach_another_thread_through_the_depot) {
  // This thread holds every letter the depot and its own shelf have, so
  // that the other thread's letters are all new and the depot's count says
  // what the other thread gave.
  std::vector<letter<soma::fact>*> held;
  while (letters_in_depot<soma::fact>() > 0 || letters_on_this_thread<soma::fact>() > 0)
    held.push_back(take_letter<soma::fact>());
  std::size_t kept_there = 0;
  std::thread other{[&] {
    // 3 batches' worth, taken at once and then given back: the shelf gives
    // a batch to the depot each time it holds two, and the rest when the
    // thread ends.
    std::vector<letter<soma::fact>*> ls;
    for (std::size_t i = 0; i < 3 * letter_batch; ++i) {
      ls.push_back(take_letter<soma::fact>());
      ls.back()->value = ran("n" + std::to_string(i), 1);
    }
    for (auto* l : ls)
      dispose(l);
    kept_there = letters_on_this_thread<soma::fact>();
  }};
  other.join();
  // Two batches went to the depot while the thread ran (each when its shelf
  // held two), and the one it kept when it ended.
  BOOST_TEST(kept_there == letter_batch);
  BOOST_TEST(letters_in_depot<soma::fact>() == 3 * letter_batch);
  // This thread, its own shelf empty, takes a batch from there.
  auto* from_depot = take_letter<soma::fact>();
  BOOST_TEST(letters_in_depot<soma::fact>() == 2 * letter_batch);
  BOOST_TEST(letters_on_this_thread<soma::fact>() == letter_batch - 1);
  BOOST_TEST(from_depot->value.name == "ran"); // one the other thread used
  dispose(from_depot);
  for (auto* l : held)
    dispose(l);
}

BOOST_AUTO_TEST_CASE(a_full_depot_keeps_its_bound_and_deletes_the_rest) {
  std::vector<letter<soma::fact>*> held; // the depot emptied, as above
  while (letters_in_depot<soma::fact>() > 0 || letters_on_this_thread<soma::fact>() > 0)
    held.push_back(take_letter<soma::fact>());
  std::thread other{[] {
    std::vector<letter<soma::fact>*> ls;
    for (std::size_t i = 0; i < (soma::detail::letter_depot_batches + 3) * letter_batch; ++i)
      ls.push_back(take_letter<soma::fact>());
    for (auto* l : ls)
      dispose(l);
  }};
  other.join();
  BOOST_TEST(letters_in_depot<soma::fact>() == soma::detail::letter_depot_batches * letter_batch);
  for (auto* l : held)
    dispose(l);
}

BOOST_AUTO_TEST_CASE(a_letter_gives_its_fact_to_a_message_when_caf_needs_one) {
  // What a proxy of a remote actor does with what it is told: it serialises
  // a message made of the element's content.
  auto* l = take_letter<soma::fact>();
  l->value = ran("embed", 318);
  auto copy = l->copy_content_to_message();
  BOOST_TEST(l->value == ran("embed", 318));
  auto moved = l->move_content_to_message();
  BOOST_REQUIRE(copy.match_elements<soma::fact>());
  BOOST_REQUIRE(moved.match_elements<soma::fact>());
  BOOST_TEST(copy.get_as<soma::fact>(0) == ran("embed", 318));
  BOOST_TEST(moved.get_as<soma::fact>(0) == ran("embed", 318));
  BOOST_TEST(l->content().type_token() == caf::make_type_token<soma::fact>());
  dispose(l);
}

BOOST_AUTO_TEST_CASE(a_forward_gathers_its_facts_into_the_letter_its_last_forward_left_and_sends_only_its_own) {
  // A whole-forward watcher's letter comes back to this thread's pool, and
  // the next forward here gathers into it: into the same list and the same
  // fields (nothing allocated), and with fewer facts than the last forward
  // it sends only its own.
  struct seen {
    const void* letter;
    const void* list;
    const void* fields;
    soma::forward_facts value;
  };
  std::vector<seen> got;
  auto watcher = sys.spawn([&](caf::event_based_actor*) -> caf::behavior {
    return {[&](const soma::forward_facts& x) {
      got.push_back({&x, x.facts.data(), x.facts[0].fields.data(), x});
    }};
  });
  sched.run();
  soma::watching w{soma::watcher::whole_forwards(watcher)};
  soma::fact finished{"finished", {{"took_us", 30}}};
  soma::fact broke{"broke", {{"node", "embed"}, {"took_us", 9}}};
  {
    auto first = caf::make_counted<saying>(&w);
    for (auto* node : {"tokenize", "embed", "score"})
      first->emit(ran(node, 5), nullptr);
    BOOST_TEST(!sched.has_job()); // nothing sent before the forward's end
    first->emit(soma::fact{finished}, nullptr);
  }
  sched.run();
  {
    auto second = caf::make_counted<saying>(&w);
    second->emit(ran("tokenize", 6), nullptr);
    second->emit(soma::fact{broke}, nullptr);
  }
  sched.run();
  BOOST_REQUIRE_EQUAL(got.size(), 2u);
  std::vector<soma::fact> want_first{ran("tokenize", 5), ran("embed", 5), ran("score", 5), finished};
  std::vector<soma::fact> want_second{ran("tokenize", 6), broke};
  BOOST_TEST((got[0].value.facts == want_first));
  BOOST_TEST((got[1].value.facts == want_second));
  BOOST_TEST(got[0].value.forward != got[1].value.forward);
  BOOST_TEST(got[1].letter == got[0].letter);
  BOOST_TEST(got[1].list == got[0].list);
  BOOST_TEST(got[1].fields == got[0].fields);

  // A forward that never ends gives its letter back when it goes.
  auto here = letters_on_this_thread<soma::forward_facts>();
  {
    auto open = caf::make_counted<saying>(&w);
    open->emit(ran("tokenize", 7), nullptr);
    BOOST_TEST(letters_on_this_thread<soma::forward_facts>() == here - 1);
  }
  BOOST_TEST(letters_on_this_thread<soma::forward_facts>() == here);
  BOOST_TEST(!sched.has_job());
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_SUITE_END()
