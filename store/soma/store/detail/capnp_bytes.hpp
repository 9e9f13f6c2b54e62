#pragma once

/// @file
/// Cap'n Proto messages as the bytes soma keeps and sends, and back: one way
/// for every message (records, readings, cache entries, the wire).

#include <cstring>
#include <string>
#include <string_view>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>
#include <kj/io.h>

namespace soma::detail {

/// The message, unpacked (a segment table, then 8-byte words), written
/// straight into a string.
inline std::string to_bytes(capnp::MessageBuilder& msg) {
  std::string out(capnp::computeSerializedSizeInWords(msg) * sizeof(capnp::word), '\0');
  kj::ArrayOutputStream stream{kj::arrayPtr(reinterpret_cast<kj::byte*>(out.data()), out.size())};
  capnp::writeMessage(stream, msg);
  return out;
}

/// `bytes` copied into aligned words for a FlatArrayMessageReader: LMDB and
/// CAF hand bytes out on any boundary. The caller has checked that they are
/// a whole number of words (and says so in its own words when not).
inline kj::Array<capnp::word> aligned_words(std::string_view bytes) {
  auto words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), bytes.data(), words.size() * sizeof(capnp::word));
  return words;
}

} // namespace soma::detail
