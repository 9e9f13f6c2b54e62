#include "soma/wire/cache_entry.hpp"

#include "soma/detail/capnp.hpp"
#include "soma/schema/cache.capnp.h"

namespace soma::wire {

void encode_cache_entry(std::string& out, std::string_view node, std::string_view type,
                        std::string_view version, std::string_view output,
                        std::int64_t kept_at, std::uint64_t kept_ns) {
  capnp::MallocMessageBuilder msg{static_cast<unsigned>(32 + output.size() / sizeof(capnp::word))};
  auto r = msg.initRoot<schema::CacheEntry>();
  r.setNode(detail::as_text(node));
  r.setType(detail::as_text(type));
  r.setVersion(detail::as_text(version));
  r.setKeptAt(kept_at);
  r.setKeptNs(kept_ns);
  r.setOutput(detail::as_data(output));
  out += detail::to_bytes(msg);
}

cache_entry decode_cache_entry(std::string_view bytes) {
  // The entry is ours and whole-sized: let the reader walk all of it (the
  // default limit, 64 MiB, would refuse a larger kept output).
  capnp::ReaderOptions options;
  options.traversalLimitInWords = bytes.size() / sizeof(capnp::word) + 64;
  return detail::read_capnp<schema::CacheEntry>(
    bytes,
    [](schema::CacheEntry::Reader r) {
      cache_entry e;
      e.node = detail::text_of(r.getNode());
      e.type = detail::text_of(r.getType());
      e.version = detail::text_of(r.getVersion());
      e.kept_at = r.getKeptAt();
      e.kept_ns = r.getKeptNs();
      e.output = detail::bytes_of(r.getOutput());
      return e;
    },
    options);
}

} // namespace soma::wire
