#pragma once

/// @file
/// Cap'n Proto messages as the bytes soma keeps and sends, and back: one way
/// for every message (format-1 records, readings, cache entries, the wire),
/// and the one place where Cap'n Proto's errors become soma's.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>
#include <kj/exception.h>
#include <kj/io.h>

#include "soma/detail/undecodable.hpp"

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

/// `s` as Cap'n Proto data or text, without a copy (valid while `s` is).
inline capnp::Data::Reader as_data(std::string_view s) {
  return {reinterpret_cast<const kj::byte*>(s.data()), s.size()};
}
inline capnp::Text::Reader as_text(std::string_view s) { return {s.data(), s.size()}; }

/// Cap'n Proto data or text copied out (text keeps any NUL it holds).
inline std::string bytes_of(capnp::Data::Reader d) {
  return {reinterpret_cast<const char*>(d.begin()), d.size()};
}
inline std::string text_of(capnp::Text::Reader t) { return {t.cStr(), t.size()}; }

/// Calls `f` and returns what it returns; a Cap'n Proto error it throws
/// (kj::Exception) is thrown on as `to_error(description)`, soma's error in
/// its caller's words (undecodable, codec_error, ...). The one place soma
/// catches kj::Exception: every Cap'n Proto call that may throw goes
/// through it. Other exceptions pass untouched.
template <class F, class ToError>
decltype(auto) capnp_errors_as(ToError&& to_error, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const kj::Exception& e) {
    throw to_error(std::string_view{e.getDescription().cStr()});
  }
}

/// Reads `bytes` as a message whose root is `Root` and gives the root to
/// `f`, whose result it returns. Bytes on an 8-byte boundary are read in
/// place, others are copied into words first. Throws undecodable when they
/// are not a whole number of words or Cap'n Proto refuses them (an error
/// from `f` while it reads is one too).
template <class Root, class F>
auto read_capnp(std::string_view bytes, F&& f, capnp::ReaderOptions options = {}) {
  if (bytes.empty() || bytes.size() % sizeof(capnp::word) != 0)
    throw undecodable(std::to_string(bytes.size()) + " bytes is not a whole number of 8-byte words");
  kj::Array<capnp::word> copied;
  kj::ArrayPtr<const capnp::word> words;
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % alignof(capnp::word) == 0) {
    words = kj::arrayPtr(reinterpret_cast<const capnp::word*>(bytes.data()),
                         bytes.size() / sizeof(capnp::word));
  } else {
    copied = aligned_words(bytes);
    words = copied.asPtr();
  }
  return capnp_errors_as([](std::string_view what) { return undecodable(std::string{what}); }, [&] {
    capnp::FlatArrayMessageReader reader{words, options};
    return f(reader.template getRoot<Root>());
  });
}

} // namespace soma::detail
