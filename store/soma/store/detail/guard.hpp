#pragma once

/// @file
/// Reading a damaged store must not kill the reader. LMDB follows page
/// numbers and offsets it finds in the file; in a damaged file they can
/// point past its end (SIGBUS) or out of the map (SIGSEGV), inside
/// mdb_cursor_get. Every LMDB read soma makes, and every pass over a
/// value's bytes, runs through guarded(): a fault there ends the call with
/// `false` instead of the process. A fault anywhere else goes to the
/// handler that was there before, as the kernel would have called it (its
/// mask, SA_NODEFER, SA_RESETHAND), or to the default: the process dies, as
/// it should for a bug.
///
/// The handler is there only while the process has a store open: each open
/// store holds a fault_guard (docs/architecture.md, "What linking soma
/// changes in your process").

#include "soma/export.hpp"

namespace soma::detail {

/// While one lives, soma's SIGBUS/SIGSEGV handler is in place. Making one
/// installs it unless it is the handler now (a handler the program
/// installed since then keeps getting the faults that are not soma's); when
/// the last one goes, the handler it replaced is put back, unless the
/// program installed another since. Any thread may make or drop one.
class fault_guard {
public:
  fault_guard() noexcept;
  ~fault_guard();

  fault_guard(const fault_guard&) = delete;
  fault_guard& operator=(const fault_guard&) = delete;
};

/// Runs `fn(arg)`; false when it faulted (SIGBUS or SIGSEGV) while a
/// fault_guard lives. `fn` must be plain code (LMDB calls, hashing): nothing
/// with a destructor may live in it, since a fault leaves it without
/// unwinding.
[[nodiscard]] SOMA_API_EXPORT bool guarded(void (*fn)(void*), void* arg) noexcept;

/// guarded() for a lambda that captures by reference.
template <class F>
[[nodiscard]] bool guarded(F& f) noexcept {
  return guarded([](void* p) { (*static_cast<F*>(p))(); }, &f);
}

} // namespace soma::detail
