#pragma once

/// @file
/// How soma-node's memory allocator treats large buffers.

namespace soma::node_cli {

/// Keeps freed buffers of up to 32 MiB for reuse instead of giving their
/// pages back to the kernel. glibc's default trims an arena's free top once
/// it passes twice the mapping threshold (about 2 MiB after a 1 MiB buffer
/// was freed), so a slice passing 1 MiB values allocated several buffers a
/// trip on pages given back the trip before, and took a page fault every
/// 4 KiB (bench_remote l: 10.6-14.9 ms a trip; 1.4 ms with 16 MiB kept,
/// 1.7 ms in the whole benchmark with 32 MiB; benchmarks/README.md, "A 1
/// MiB value"). With it, buffers under 32 MiB
/// come from the arenas, and each arena keeps up to 32 MiB free at its top.
/// When the operator set glibc's malloc tunables (GLIBC_TUNABLES naming
/// glibc.malloc.), theirs stand and nothing is changed. Call it first in main.
void keep_large_buffers() noexcept;

} // namespace soma::node_cli
