#include "soma/store/cache.hpp"
#include "soma/store/keys.hpp"

#include <chrono>
#include <cstdint>
#include <cstring>

#include <openssl/evp.h>

#include "soma/detail/seal.hpp"
#include "soma/detail/undecodable.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/cache_at.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/local_answers.hpp"
#include "soma/wire/cache_entry.hpp"
#include "soma/store/detail/key_bytes.hpp"

namespace soma {

namespace {

using detail::db;

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

using detail::be64;
using detail::from_be64;

using entry = wire::cache_entry;

// A stored value is the entry's kept-at nanoseconds (8 bytes, big-endian:
// its place in the age index, readable even when the rest is damaged), then
// the CacheEntry message.
constexpr std::size_t stamp = 8;

// The entry's bytes inside its envelope (or all of a format-1 entry);
// nullopt when the envelope says it is damaged.
std::optional<std::string_view> payload_of(std::string_view key, std::string_view stored) {
  std::string_view payload;
  auto state = detail::unseal(key, stored, detail::sealed_kind::cache, payload);
  if (state == detail::seal_state::ok || state == detail::seal_state::unsealed)
    return payload;
  return std::nullopt;
}

// The kept-at stamp, unchecked: it only has to match the age index's (a
// damaged one just does not), and checking would hash the whole output.
std::uint64_t stamp_of(std::string_view value) {
  auto stored = detail::unchecked_payload(value);
  std::uint64_t x = 0;
  for (std::size_t i = 0; i < stamp && i < stored.size(); ++i)
    x = (x << 8) | static_cast<unsigned char>(stored[i]);
  return x;
}

std::optional<entry> decode(std::string_view key, std::string_view value) {
  auto payload = payload_of(key, value);
  if (!payload)
    return std::nullopt;
  auto stored = *payload;
  if (stored.size() < stamp)
    return std::nullopt;
  try {
    return wire::decode_cache_entry(stored.substr(stamp));
  } catch (const detail::undecodable&) {
    return std::nullopt;
  }
}

std::string encode(std::string_view key, const detail::cache_identity& who,
                   std::string_view output, std::int64_t kept_at, std::uint64_t kept_ns) {
  auto payload = be64(kept_ns);
  wire::encode_cache_entry(payload, who.node, who.type, who.version, output, kept_at, kept_ns);
  return detail::sealed(key, detail::sealed_kind::cache, payload);
}

std::string node_prefix(std::string_view node) {
  std::string p{node};
  p.push_back('\0');
  return p;
}

// The age index: when it was kept (ns, big-endian), then its key; the value
// is the entry's size. Oldest first is one cursor walk.
std::string age_key(std::uint64_t kept_ns, std::string_view key) {
  return be64(kept_ns) + std::string{key};
}

// Every age-index key, oldest first, with its entry's size.
std::vector<std::pair<std::string, std::uint64_t>> ages_of(const detail::environment& env,
                                                             MDB_txn* txn, MDB_dbi ages) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  detail::cursor c{env, txn, ages};
  for (bool ok = c.move(MDB_FIRST); ok; ok = c.move(MDB_NEXT))
    out.emplace_back(std::string{c.key()}, from_be64(c.value()));
  return out;
}

} // namespace

namespace detail {

std::string cache_key(const cache_identity& who, std::string_view input) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  auto part = [ctx](std::string_view x) {
    auto size = be64(x.size());
    EVP_DigestUpdate(ctx, size.data(), size.size());
    EVP_DigestUpdate(ctx, x.data(), x.size());
  };
  part(who.type);
  part(who.node);
  part(who.version);
  // Only a node with fields adds them, so that the keys of nodes without
  // stay what they were.
  if (!who.state.empty()) {
    EVP_DigestUpdate(ctx, "state", 5);
    part(who.state);
  }
  EVP_DigestUpdate(ctx, input.data(), input.size());
  EVP_DigestFinal_ex(ctx, digest, &len);
  EVP_MD_CTX_free(ctx);
  return node_prefix(who.node) + std::string(reinterpret_cast<char*>(digest), len);
}

caf::expected<void> check_cache_entry(std::string_view key, std::string_view value) {
  if (!payload_of(key, value))
    return make_error(error_code::damaged, "its checksum does not match its bytes");
  if (!decode(key, value))
    return make_error(error_code::damaged, "its bytes do not decode as a kept output");
  return {};
}

std::optional<std::string> cache_get(const store& s, std::string_view key, const cache_identity& who) {
  return s.backend().cache_get(key, who);
}

bool cache_put(const store& s, std::string_view key, const cache_identity& who,
               std::string_view output) {
  return s.backend().cache_put(key, who, output, s.cache_limit());
}

std::optional<std::string> cache_get_at(const environment& env, std::string_view key,
                                        const cache_identity& who) {
  std::optional<std::string> out;
  env.read([&](MDB_txn* txn, auto& dbi) {
    std::string_view bytes;
    if (!env.get(txn, dbi(db::cache), key, bytes))
      return;
    auto e = decode(key, bytes);
    if (e && e->node == who.node && e->type == who.type && e->version == who.version)
      out = std::move(e->output);
  });
  return out;
}

bool cache_put_at(environment& env, std::string_view key, const cache_identity& who,
                  std::string_view output, const std::optional<std::size_t>& limit) {
  if (limit && output.size() > *limit)
    return false; // keeping it would evict everything, itself included
  auto now = std::chrono::system_clock::now().time_since_epoch();
  auto kept_ns = static_cast<std::uint64_t>(
    std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
  auto bytes = encode(key, who, output, unix_now(), kept_ns);
  env.write([&](MDB_txn* txn, auto& dbi) {
    auto cache = dbi(db::cache);
    auto ages = dbi(db::cache_age);
    // Written again (it was damaged, or kept twice at once): drop its old age.
    std::string_view old;
    if (env.get(txn, cache, key, old))
      env.del(txn, ages, age_key(stamp_of(old), key));
    env.put(txn, cache, key, bytes);
    env.put(txn, ages, age_key(kept_ns, key), be64(bytes.size()));
    if (!limit)
      return;
    // Evict the oldest until what is kept fits. An age whose entry was kept
    // again since (its stamp differs) only leaves the index.
    auto all = ages_of(env, txn, ages);
    std::uint64_t total = 0;
    for (auto& a : all)
      total += a.second;
    for (auto& [age, size] : all) {
      if (total <= *limit)
        break;
      auto victim = std::string_view{age}.substr(8);
      std::string_view entry_bytes;
      if (env.get(txn, cache, victim, entry_bytes)
          && stamp_of(entry_bytes) == from_be64(age.substr(0, 8)))
        env.del(txn, cache, victim);
      env.del(txn, ages, age);
      total -= size;
    }
  });
  return true;
}

} // namespace detail

std::vector<cache_row> cache_entries(const store& s, std::optional<std::string_view> node) {
  std::vector<cache_row> out;
  std::optional<std::string> of = node ? std::optional<std::string>{std::string{*node}} : std::nullopt;
  std::optional<std::string> after;
  for (;;) {
    auto part = s.backend().ask().cache_entries(of, after, detail::rows_per_part);
    auto full = part.size() >= detail::rows_per_part;
    for (auto& e : part)
      out.push_back(std::move(e.row));
    if (!full || part.empty())
      return out;
    after = std::move(part.back().key);
  }
}

std::vector<detail::cache_entry_row>
detail::local_answers::cache_entries(const std::optional<std::string>& node,
                                     const std::optional<std::string>& after, std::size_t count) {
  count = std::min(count, rows_per_part);
  std::vector<cache_entry_row> out;
  auto prefix = node ? node_prefix(*node) : std::string{};
  auto& env = env_;
  env.read([&](MDB_txn* txn, auto& dbi) {
    auto cache = dbi(db::cache);
    if (cache == 0)
      return;
    detail::cursor c{env, txn, cache};
    bool ok = after            ? c.move(MDB_SET_RANGE, *after + '\0')
              : prefix.empty() ? c.move(MDB_FIRST)
                               : c.move(MDB_SET_RANGE, prefix);
    for (; ok && c.key().starts_with(prefix) && out.size() < count; ok = c.move(MDB_NEXT)) {
      auto key = c.key();
      cache_row row;
      row.node = std::string{key.substr(0, key.find('\0'))};
      if (auto e = decode(key, c.value())) {
        row.type = e->type;
        row.version = e->version;
        row.bytes = e->output.size();
        row.kept_at = e->kept_at;
      } else {
        row.type = "(damaged)";
      }
      out.push_back({std::string{key}, std::move(row)});
    }
  });
  return out;
}

std::size_t cache_clear(store& s, std::optional<std::string_view> node) {
  std::size_t cleared = 0;
  auto prefix = node ? node_prefix(*node) : std::string{};
  auto& env = s.env();
  env.write([&](MDB_txn* txn, auto& dbi) {
    cleared = 0;
    auto cache = dbi(db::cache);
    auto ages = dbi(db::cache_age);
    // Count what the cache holds; drop every age that names it (stale ones
    // included).
    std::vector<std::string> victims;
    {
      detail::cursor c{env, txn, cache};
      for (bool ok = prefix.empty() ? c.move(MDB_FIRST) : c.move(MDB_SET_RANGE, prefix);
           ok && c.key().starts_with(prefix); ok = c.move(MDB_NEXT))
        victims.emplace_back(c.key());
    }
    for (auto& victim : victims)
      env.del(txn, cache, victim);
    cleared = victims.size();
    for (auto& [age, size] : ages_of(env, txn, ages))
      if (std::string_view{age}.substr(8).starts_with(prefix))
        env.del(txn, ages, age);
  });
  return cleared;
}

} // namespace soma
