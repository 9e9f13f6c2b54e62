#include "soma/wire/cache_entry.hpp"

#include "soma/detail/capnp.hpp"
#include "soma/schema/cache.capnp.h"

namespace soma::wire {

void encode_cache_entry(std::string& out, std::string_view node, std::string_view type,
                        std::string_view version, std::string_view output,
                        std::int64_t kept_at, std::uint64_t kept_ns) {
  capnp::MallocMessageBuilder msg{static_cast<unsigned>(32 + output.size() / sizeof(capnp::word))};
  auto r = msg.initRoot<schema::CacheEntry>();
  auto text = [](std::string_view s) { return capnp::Text::Reader(s.data(), s.size()); };
  r.setNode(text(node));
  r.setType(text(type));
  r.setVersion(text(version));
  r.setKeptAt(kept_at);
  r.setKeptNs(kept_ns);
  r.setOutput(kj::arrayPtr(reinterpret_cast<const kj::byte*>(output.data()), output.size()));
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
      e.node = std::string{r.getNode().cStr(), r.getNode().size()};
      e.type = std::string{r.getType().cStr(), r.getType().size()};
      e.version = std::string{r.getVersion().cStr(), r.getVersion().size()};
      e.kept_at = r.getKeptAt();
      e.kept_ns = r.getKeptNs();
      auto out = r.getOutput();
      e.output.assign(reinterpret_cast<const char*>(out.begin()), out.size());
      return e;
    },
    options);
}

} // namespace soma::wire
