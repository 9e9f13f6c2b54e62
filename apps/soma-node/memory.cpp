#include "memory.hpp"

#include <malloc.h>

namespace soma::node_cli {

namespace {

constexpr int kept_bytes = 16 << 20;

} // namespace

void keep_large_buffers() noexcept {
  // Each fixes glibc's threshold, which otherwise moves by itself: buffers
  // under it come from the arenas, not from a fresh mapping each; and an
  // arena gives back its free top only past it.
  (void)::mallopt(M_MMAP_THRESHOLD, kept_bytes);
  (void)::mallopt(M_TRIM_THRESHOLD, kept_bytes);
}

} // namespace soma::node_cli
