#pragma once

/// @file
/// Cap'n Proto's packing (https://capnproto.org/encoding.html#packing),
/// done a word at a time: the bytes `capnp::writePackedMessage` writes for
/// the same message, byte for byte, in a fraction of the time.
///
/// Why: every record and fact blob a recorder keeps is a packed message
/// (packed.hpp), and Cap'n Proto's packer tests and copies each byte on its
/// own. It took 40 % of encoding a record (benchmarks/README.md, "Packing
/// a word at a time"). Here a word's tag comes from a few operations on the
/// whole word, and the choices (where a run of zero words or of literal
/// words starts and ends) are Cap'n Proto's, so a value packs to the same
/// bytes, and the same checksum, as it did.

#include <cstddef>
#include <string>

#include <capnp/message.h>

namespace soma::detail {

/// The most bytes packing `words` words writes: a tag, 8 bytes and a count
/// for every word.
[[nodiscard]] constexpr std::size_t packed_bound(std::size_t words) noexcept {
  return words * 10;
}

/// Packs `n` words from `in` into `out`, which has room for
/// packed_bound(n) bytes, as one `write` of them to Cap'n Proto's packed
/// stream would: a run of zero words or of literal words ends at the last
/// of the `n`. Returns the end of what it wrote.
[[nodiscard]] char* pack_words(const capnp::word* in, std::size_t n, char* out) noexcept;

/// Appends a message of `segments` to `out` as `capnp::writePackedMessage`
/// writes it: its segment table, then each segment, packed. Throws
/// std::invalid_argument for no segment (Cap'n Proto refuses one too), and
/// what growing `out` throws (std::bad_alloc, std::length_error).
void append_packed(std::string& out,
                   kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>> segments);

/// The same for the message `msg` has built.
void append_packed(std::string& out, capnp::MessageBuilder& msg);

} // namespace soma::detail
