#include "soma/detail/seal.hpp"

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace soma::detail {

namespace {

constexpr unsigned char magic0 = 0xF5, magic1 = 'S';

} // namespace

std::uint32_t checksum(std::string_view key, const unsigned char* header,
                       std::string_view payload) noexcept {
  // The key and header seed the payload's hash: one pass over the payload.
  std::uint32_t head = 0;
  std::memcpy(&head, header, sizeof head);
  auto seed = XXH3_64bits_withSeed(key.data(), key.size(), head);
  return static_cast<std::uint32_t>(XXH3_64bits_withSeed(payload.data(), payload.size(), seed));
}

void begin_seal(std::string& out, sealed_kind kind, std::uint8_t format) {
  const char head[seal_bytes] = {static_cast<char>(magic0), static_cast<char>(magic1),
                                 static_cast<char>(format), static_cast<char>(kind),
                                 0, 0, 0, 0};
  out.append(head, seal_bytes);
}

void seal(std::string& out, std::string_view key, std::size_t at) noexcept {
  auto* head = reinterpret_cast<unsigned char*>(out.data() + at);
  auto sum = checksum(key, head, std::string_view{out}.substr(at + seal_bytes));
  for (int i = 0; i < 4; ++i)
    head[4 + i] = static_cast<unsigned char>(sum >> (8 * i));
}

std::string sealed(std::string_view key, sealed_kind kind, std::string_view payload,
                   std::uint8_t format) {
  std::string out;
  out.reserve(seal_bytes + payload.size());
  begin_seal(out, kind);
  out[2] = static_cast<char>(format);
  out.append(payload);
  seal(out, key);
  return out;
}

std::string_view unchecked_payload(std::string_view bytes) noexcept {
  auto* head = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() >= seal_bytes && head[0] == magic0 && head[1] == magic1)
    return bytes.substr(seal_bytes);
  return bytes;
}

seal_state unseal(std::string_view key, std::string_view bytes, sealed_kind kind,
                  std::string_view& payload, std::uint8_t* format) noexcept {
  auto* head = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 2 || head[0] != magic0 || head[1] != magic1) {
    payload = bytes;
    return seal_state::unsealed;
  }
  if (bytes.size() < seal_bytes)
    return seal_state::damaged;
  // The envelope outlives formats: its checksum is checked before its
  // version is believed, so a flipped version byte reads as damage.
  payload = bytes.substr(seal_bytes);
  std::uint32_t stored = 0;
  for (int i = 0; i < 4; ++i)
    stored |= static_cast<std::uint32_t>(head[4 + i]) << (8 * i);
  if (checksum(key, head, payload) != stored || head[2] < oldest_sealed_format)
    return seal_state::damaged;
  // Format 4 changed only fact blobs and added a run's words: a value of
  // another kind saying 4 is a newer soma's too.
  auto newest = kind == sealed_kind::facts || kind == sealed_kind::words ? newest_format
                                                                          : format_version;
  if (head[2] > newest)
    return seal_state::newer;
  if (format)
    *format = head[2];
  return head[3] == static_cast<unsigned char>(kind) ? seal_state::ok : seal_state::damaged;
}

} // namespace soma::detail
