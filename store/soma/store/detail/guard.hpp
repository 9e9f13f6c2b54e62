#pragma once

/// @file
/// Reading a damaged store must not kill the reader. LMDB follows page
/// numbers and offsets it finds in the file; in a damaged file they can
/// point past its end (SIGBUS) or out of the map (SIGSEGV), inside
/// mdb_cursor_get. Every LMDB read soma makes, and every pass over a
/// value's bytes, runs through guarded(): a fault there ends the call with
/// `false` instead of the process. A fault anywhere else is left to the
/// handler that was there before (or the default: the process dies, as it
/// should for a bug).

namespace soma::detail {

/// Puts soma's SIGBUS/SIGSEGV handler in place, unless it is: a handler
/// installed since (by the program) keeps getting the faults that are not
/// soma's. Opening a store calls it; guarded() calls it once.
void install_fault_guard() noexcept;

/// Runs `fn(arg)`; false when it faulted (SIGBUS or SIGSEGV). `fn` must be
/// plain code (LMDB calls, hashing): nothing with a destructor may live in
/// it, since a fault leaves it without unwinding.
[[nodiscard]] bool guarded(void (*fn)(void*), void* arg) noexcept;

/// guarded() for a lambda that captures by reference.
template <class F>
[[nodiscard]] bool guarded(F& f) noexcept {
  return guarded([](void* p) { (*static_cast<F*>(p))(); }, &f);
}

} // namespace soma::detail
