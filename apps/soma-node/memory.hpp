#pragma once

/// @file
/// How soma-node's memory allocator treats large buffers.

namespace soma::node_cli {

/// Keeps freed buffers of up to 16 MiB for reuse instead of giving them back
/// to the kernel: glibc's default gives a large buffer back when it is
/// freed, so the next value of that size takes a page fault every 4 KiB
/// again. A slice that sends 1 MiB values there and back allocated and freed
/// several such buffers a trip, and spent most of it faulting them in
/// (bench_remote l: 10.6 ms a trip, 1.5 ms with them kept; benchmarks/README.md).
/// A process keeps at most 16 MiB free at the top of each of its allocator's
/// arenas. Call it first in main.
void keep_large_buffers() noexcept;

} // namespace soma::node_cli
