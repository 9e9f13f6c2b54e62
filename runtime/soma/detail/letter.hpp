#pragma once

/// @file
/// Letters: CAF mailbox elements that hold one value and go back to a pool
/// when the receiving actor is done with them, so that telling an actor a
/// fact allocates nothing once the pool is warm.
///
/// Why: a fact told to an actor is made on the thread running the forward
/// and freed on the thread running the watcher. With glibc's allocator,
/// memory freed on one thread and allocated on another goes through the
/// arenas' locks every time (a thread's own cache holds 7 chunks of a size),
/// and with forwards in flight those locks were most of the time spent
/// (benchmarks/README.md, "Facts told in letters"). A letter keeps its
/// value's capacity (a fact's fields, their texts) between uses, and the
/// letters freed on one thread reach the threads that take them in batches,
/// through one lock taken once per batch.
///
/// CAF supports this: a mailbox element is deleted through
/// `memory_managed::request_deletion`, which a letter overrides to go back
/// to its pool.

#include <cstddef>
#include <vector>

#include <caf/detail/type_erased_tuple_view.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/make_message.hpp>

#include "soma/fact.hpp"

namespace soma::detail {

/// The value a letter holds; a base, so that it is built before the view
/// onto it.
template <class T>
struct letter_value {
  T value;
};

/// A mailbox element holding one `T`. Made only by take_letter; given to
/// CAF as a `caf::mailbox_element_ptr`, whose deleter sends it back to its
/// pool on whichever thread the receiver ran.
template <class T>
class letter final : public letter_value<T>,
                     public caf::mailbox_element,
                     public caf::detail::type_erased_tuple_view<T> {
public:
  letter() : caf::detail::type_erased_tuple_view<T>(this->value) {}

  caf::type_erased_tuple& content() override { return *this; }
  const caf::type_erased_tuple& content() const override { return *this; }

  caf::message move_content_to_message() override {
    return caf::make_message(std::move(this->value));
  }
  caf::message copy_content_to_message() const override {
    return caf::make_message(this->value);
  }

  /// Back to the pool of the thread calling (or deleted, when the pools
  /// are full or its value grew past what a pool keeps).
  void request_deletion(bool) const noexcept override;

  /// Deletes the letter; only its pool calls this.
  void destroy() noexcept { delete this; }
};

/// A letter from this thread's pool, or a new one: no sender, an
/// asynchronous message id, and whatever value its last use left, whose
/// capacity an assignment reuses. The caller assigns `value` and hands the
/// letter to `caf::abstract_actor::enqueue` as a `caf::mailbox_element_ptr`.
template <class T>
letter<T>* take_letter();

/// Whether a pool keeps `x` for its capacity: the engine's own facts (a few
/// fields of short texts) are kept, a user's fact with room for a long text
/// or many fields is not, or a pool would hold it for the life of the
/// process.
[[nodiscard]] bool worth_keeping(const fact& x) noexcept;

/// Whether a pool keeps a list of facts (a forward's): room for at most 64,
/// each worth keeping.
[[nodiscard]] bool worth_keeping(const std::vector<fact>& list) noexcept;

/// A thread's pool gives letter_batch letters to the pools' common depot
/// when it holds twice that many, and takes a batch from it when it has
/// none. The depot keeps at most letter_depot_batches batches; beyond them,
/// letters are deleted. So a process keeps at most 2 * letter_batch letters
/// of a kind per thread, and letter_depot_batches * letter_batch more,
/// beyond those in mailboxes.
inline constexpr std::size_t letter_batch = 64;
inline constexpr std::size_t letter_depot_batches = 64;

/// How many letters of a kind this thread's pool holds, and the depot
/// (tests look).
template <class T>
std::size_t letters_on_this_thread() noexcept;
template <class T>
std::size_t letters_in_depot() noexcept;

} // namespace soma::detail
