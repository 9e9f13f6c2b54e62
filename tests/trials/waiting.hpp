#pragma once

// What the trials tests wait for that no process announces: a state of the
// store (how many trials are done, how quiet a killed claimant has become).
// Waits for lines a process prints use child::until.

#include <chrono>
#include <thread>

namespace soma_test {

/// Reads the store through `pred` every 10 ms until it holds or `deadline`
/// passes; whether it held.
template <class P>
bool store_shows(P pred, std::chrono::milliseconds deadline) {
  auto by = std::chrono::steady_clock::now() + deadline;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= by)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

} // namespace soma_test
