#pragma once

// How many times a process's threads have given up the CPU: the thread
// hand-offs a trip costs, counted by the kernel, free of the machine's noise.

#include <sys/types.h>

#include <cstdint>

/// Voluntary and involuntary context switches of every thread of `pid` so
/// far (/proc/PID/task/*/status); 0 when it cannot be read. Threads that
/// ended meanwhile are not counted: read around trips, with no thread
/// starting or ending.
std::uint64_t context_switches(pid_t pid);
