#include "soma/detail/letter.hpp"

#include <mutex>
#include <vector>

#include "soma/fact.hpp"
#include "soma/watching.hpp"

namespace soma::detail {

namespace {

constexpr std::size_t kept_fields = 16;
constexpr std::size_t kept_text = 256;
constexpr std::size_t kept_facts = 64;

bool small(const std::string& s) noexcept {
  return s.capacity() <= kept_text;
}

bool small(const fact& x) noexcept {
  return worth_keeping(x);
}

bool small(const forward_fact& x) noexcept {
  return small(x.fact);
}

bool small(const forward_facts& x) noexcept {
  return worth_keeping(x.facts);
}

// The letters every thread gave back beyond its own shelf's bound, in
// batches of letter_batch. Never freed: threads may give back letters while
// the process exits.
template <class T>
struct depot {
  std::mutex mtx;
  std::vector<std::vector<letter<T>*>> batches;
};

template <class T>
depot<T>& the_depot() {
  static auto* d = new depot<T>;
  return *d;
}

// One thread's letters of a kind: taken and given back without a lock.
template <class T>
struct shelf {
  std::vector<letter<T>*> letters;

  shelf() { letters.reserve(2 * letter_batch); }

  // Gives the last letter_batch letters to the depot, or deletes them when
  // it is full (or when there is no memory to hand them over with).
  void give_batch() noexcept {
    auto from = letters.end() - static_cast<std::ptrdiff_t>(letter_batch);
    std::vector<letter<T>*> batch;
    try {
      batch.assign(from, letters.end());
    } catch (...) {
      for (auto it = from; it != letters.end(); ++it)
        (*it)->destroy();
      letters.erase(from, letters.end());
      return;
    }
    letters.erase(from, letters.end());
    try {
      auto& d = the_depot<T>();
      std::lock_guard guard{d.mtx};
      if (d.batches.size() < letter_depot_batches) {
        d.batches.push_back(std::move(batch)); // or, throwing, leaves batch as it was
        return;
      }
    } catch (...) {
    }
    for (auto* l : batch)
      l->destroy();
  }

  // Takes a batch from the depot into the (empty) shelf; false when it has
  // none.
  bool refill() noexcept {
    auto& d = the_depot<T>();
    std::lock_guard guard{d.mtx};
    if (d.batches.empty())
      return false;
    // Into the shelf's own capacity (2 * letter_batch): nothing allocated.
    auto& batch = d.batches.back();
    letters.insert(letters.end(), batch.begin(), batch.end());
    d.batches.pop_back();
    return true;
  }

  ~shelf() {
    while (letters.size() >= letter_batch)
      give_batch();
    for (auto* l : letters)
      l->destroy();
  }
};

// This thread's shelf, made at its first letter and given back when the
// thread ends. Plain pointers, so that a letter given back while the thread
// ends (by another thread-local's destructor) finds no shelf and is deleted.
template <class T>
thread_local shelf<T>* my_shelf = nullptr;
template <class T>
thread_local bool shelf_gone = false;

template <class T>
struct shelf_keeper {
  ~shelf_keeper() {
    shelf_gone<T> = true;
    delete my_shelf<T>;
    my_shelf<T> = nullptr;
  }
};

template <class T>
shelf<T>* this_shelf() noexcept {
  if (auto* s = my_shelf<T>)
    return s;
  if (shelf_gone<T>)
    return nullptr;
  try {
    thread_local shelf_keeper<T> keeper;
    (void) keeper;
    my_shelf<T> = new shelf<T>;
  } catch (...) {
    return nullptr;
  }
  return my_shelf<T>;
}

} // namespace

bool worth_keeping(const fact& x) noexcept {
  if (!small(x.name) || x.fields.capacity() > kept_fields)
    return false;
  for (auto& f : x.fields)
    if (!small(f.key) || f.value.text_capacity() > kept_text)
      return false;
  return true;
}

bool worth_keeping(const std::vector<fact>& list) noexcept {
  if (list.capacity() > kept_facts)
    return false;
  for (auto& f : list)
    if (!worth_keeping(f))
      return false;
  return true;
}

template <class T>
letter<T>* take_letter() {
  if (auto* s = this_shelf<T>(); s && (!s->letters.empty() || s->refill())) {
    auto* l = s->letters.back();
    s->letters.pop_back();
    return l;
  }
  return new letter<T>;
}

template <class T>
void letter<T>::request_deletion(bool) const noexcept {
  auto* self = const_cast<letter*>(this);
  auto* s = small(self->value) ? this_shelf<T>() : nullptr;
  if (!s) {
    delete self;
    return;
  }
  self->sender.reset();
  self->stages.clear();
  self->mid = caf::make_message_id();
  self->next = nullptr;
  s->letters.push_back(self); // reserved: does not allocate
  if (s->letters.size() >= 2 * letter_batch)
    s->give_batch();
}

template <class T>
std::size_t letters_on_this_thread() noexcept {
  auto* s = my_shelf<T>;
  return s ? s->letters.size() : 0;
}

template <class T>
std::size_t letters_in_depot() noexcept {
  auto& d = the_depot<T>();
  std::lock_guard guard{d.mtx};
  std::size_t n = 0;
  for (auto& b : d.batches)
    n += b.size();
  return n;
}

template class letter<fact>;
template class letter<forward_fact>;
template class letter<forward_facts>;
template letter<fact>* take_letter<fact>();
template letter<forward_fact>* take_letter<forward_fact>();
template letter<forward_facts>* take_letter<forward_facts>();
template std::size_t letters_on_this_thread<fact>() noexcept;
template std::size_t letters_in_depot<fact>() noexcept;
template std::size_t letters_on_this_thread<forward_facts>() noexcept;

} // namespace soma::detail
