#include "memory.hpp"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace soma::node_cli {

namespace {

// The most M_MMAP_THRESHOLD takes on a 64-bit host (glibc's
// DEFAULT_MMAP_THRESHOLD_MAX).
constexpr int kept_bytes = 32 << 20;

} // namespace

void keep_large_buffers() noexcept {
  if (const char* tunables = std::getenv("GLIBC_TUNABLES");
      tunables && std::strstr(tunables, "glibc.malloc.") != nullptr)
    return;
  // Each fixes glibc's threshold, which otherwise moves by itself: buffers
  // under it come from the arenas, not from a fresh mapping each; and an
  // arena gives back its free top only past it.
  (void)::mallopt(M_MMAP_THRESHOLD, kept_bytes);
  (void)::mallopt(M_TRIM_THRESHOLD, kept_bytes);
}

} // namespace soma::node_cli
