#pragma once

// What Cap'n Proto itself says of encoded bytes: whether they are in
// canonical form, and what its canonicalize makes of them.

#include <cstring>
#include <string>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>

#include "soma/schema/value.capnp.h"

namespace soma_test {

// Calls `f` with Cap'n Proto's reader of `encoded` (a segment table, then
// one segment), from an aligned copy, with no traversal limit to speak of.
template <class F>
auto read_encoded(const std::string& encoded, F&& f) {
  auto words = kj::heapArray<capnp::word>(encoded.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), encoded.data(), encoded.size());
  capnp::ReaderOptions unlimited;
  unlimited.traversalLimitInWords = words.size() * 2;
  capnp::FlatArrayMessageReader reader{words, unlimited};
  return f(reader);
}

inline bool canonical(const std::string& encoded) {
  return read_encoded(encoded, [](capnp::FlatArrayMessageReader& r) { return r.isCanonical(); });
}

// The EncodedValue in `encoded` put into canonical form by Cap'n Proto,
// with the segment table of `encoded` in front.
inline std::string canonicalized(const std::string& encoded) {
  return read_encoded(encoded, [&](capnp::FlatArrayMessageReader& r) {
    auto words = capnp::canonicalize(r.getRoot<soma::schema::EncodedValue>());
    auto bytes = words.asBytes();
    return encoded.substr(0, sizeof(capnp::word))
           + std::string{reinterpret_cast<const char*>(bytes.begin()), bytes.size()};
  });
}

} // namespace soma_test
