#include "soma/wire/served_store.hpp"

#include "soma/detail/capnp.hpp"
#include "soma/schema/remote.capnp.h"

namespace soma::wire {

namespace {

using detail::as_data;
using detail::bytes_of;
using detail::text_of;

void set_ask(schema::CacheAsk::Builder b, const cache_ask& a) {
  b.setKey(as_data(a.key));
  b.setType(a.type);
  b.setNode(a.node);
  b.setVersion(a.version);
}

cache_ask get_ask(schema::CacheAsk::Reader r) {
  return {bytes_of(r.getKey()), text_of(r.getType()), text_of(r.getNode()), text_of(r.getVersion())};
}

// Large parts and kept outputs are ours and whole-sized: let the reader walk
// all of them (the default limit, 64 MiB, would refuse a larger output).
capnp::ReaderOptions whole(std::string_view bytes) {
  capnp::ReaderOptions options;
  options.traversalLimitInWords = bytes.size() / sizeof(capnp::word) + 64;
  return options;
}

} // namespace

std::string encode_snapshot_ask(std::uint64_t offset) {
  capnp::MallocMessageBuilder m;
  m.initRoot<schema::SnapshotAsk>().setOffset(offset);
  return detail::to_bytes(m);
}

std::uint64_t decode_snapshot_ask(std::string_view bytes) {
  return detail::read_capnp<schema::SnapshotAsk>(bytes, [](auto r) { return r.getOffset(); });
}

std::string encode_snapshot_part(const snapshot_part& p) {
  capnp::MallocMessageBuilder m;
  auto r = m.initRoot<schema::SnapshotPart>();
  r.setTxn(p.txn);
  r.setSize(p.size);
  r.setOffset(p.offset);
  r.setBytes(as_data(p.bytes));
  return detail::to_bytes(m);
}

snapshot_part decode_snapshot_part(std::string_view bytes) {
  return detail::read_capnp<schema::SnapshotPart>(
    bytes,
    [](schema::SnapshotPart::Reader r) {
      return snapshot_part{r.getTxn(), r.getSize(), r.getOffset(), bytes_of(r.getBytes())};
    },
    whole(bytes));
}

std::string encode_store_version(std::uint64_t txn) {
  capnp::MallocMessageBuilder m;
  m.initRoot<schema::StoreVersion>().setTxn(txn);
  return detail::to_bytes(m);
}

std::uint64_t decode_store_version(std::string_view bytes) {
  return detail::read_capnp<schema::StoreVersion>(bytes, [](auto r) { return r.getTxn(); });
}

std::string encode_cache_ask(const cache_ask& a) {
  capnp::MallocMessageBuilder m;
  set_ask(m.initRoot<schema::CacheAsk>(), a);
  return detail::to_bytes(m);
}

cache_ask decode_cache_ask(std::string_view bytes) {
  return detail::read_capnp<schema::CacheAsk>(bytes, [](auto r) { return get_ask(r); });
}

std::string encode_cache_answer(const std::optional<std::string>& output) {
  capnp::MallocMessageBuilder m;
  auto r = m.initRoot<schema::CacheAnswer>();
  r.setFound(output.has_value());
  if (output)
    r.setOutput(as_data(*output));
  return detail::to_bytes(m);
}

std::optional<std::string> decode_cache_answer(std::string_view bytes) {
  return detail::read_capnp<schema::CacheAnswer>(
    bytes,
    [](schema::CacheAnswer::Reader r) -> std::optional<std::string> {
      if (!r.getFound())
        return std::nullopt;
      return bytes_of(r.getOutput());
    },
    whole(bytes));
}

std::string encode_cache_keep(const cache_keep& k) {
  capnp::MallocMessageBuilder m;
  auto r = m.initRoot<schema::CacheKeep>();
  set_ask(r.initAsk(), k.ask);
  r.setOutput(as_data(k.output));
  r.setHasLimit(k.limit.has_value());
  r.setLimit(k.limit.value_or(0));
  return detail::to_bytes(m);
}

cache_keep decode_cache_keep(std::string_view bytes) {
  return detail::read_capnp<schema::CacheKeep>(
    bytes,
    [](schema::CacheKeep::Reader r) {
      cache_keep k{get_ask(r.getAsk()), bytes_of(r.getOutput()), std::nullopt};
      if (r.getHasLimit())
        k.limit = static_cast<std::size_t>(r.getLimit());
      return k;
    },
    whole(bytes));
}

std::string encode_cache_kept(bool kept) {
  capnp::MallocMessageBuilder m;
  m.initRoot<schema::CacheKept>().setKept(kept);
  return detail::to_bytes(m);
}

bool decode_cache_kept(std::string_view bytes) {
  return detail::read_capnp<schema::CacheKept>(bytes, [](auto r) { return r.getKept(); });
}

} // namespace soma::wire
