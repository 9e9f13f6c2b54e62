#pragma once

/// @file
/// The envelope every value soma keeps in a store carries (docs/formats.md,
/// "Sealed values"): 8 bytes before the payload,
///
///   0xF5 'S' <format version> <kind>  <checksum: 4 bytes, little-endian>
///
/// where the checksum is the low 32 bits of XXH3-64 over the value's key,
/// the first four header bytes and the payload. A value moved to another
/// key, a value of another kind, a flipped byte or a cut-off tail all fail
/// it. The envelope stays the same in later formats, so a value of a newer
/// format is told from a damaged one. Values written before the envelope existed (format 1) start with a
/// Cap'n Proto segment table or a big-endian stamp, never with 0xF5 'S', so
/// both read.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace soma::detail {

/// The format this soma writes a sealed value's payload in: 3, packed Cap'n
/// Proto records, fact blobs and run metadata (packed.hpp). It reads 2 (their
/// compact encoding) too, and values of other kinds are the same in both.
inline constexpr std::uint8_t format_version = 3;

/// The newest format, which this soma writes where it differs from 3: a
/// fact blob that names its run's words, and those words (run_words.hpp,
/// docs/formats.md). Every other value is the same in 3 and 4 and says 3,
/// so a soma of format 3 reads all but those.
inline constexpr std::uint8_t newest_format = 4;

/// The oldest sealed format this soma reads (format 1 was not sealed).
inline constexpr std::uint8_t oldest_sealed_format = 2;

/// What a sealed value holds; part of its checksum.
enum class sealed_kind : std::uint8_t {
  record = 1,   ///< a forward's record (records database)
  facts = 2,    ///< a forward's fact blob (facts database)
  run_meta = 3, ///< a run's metadata (meta database, meta/run/<id>)
  reading = 4,  ///< a machine reading (readings database)
  cache = 5,    ///< a kept output (cache database)
  batch = 6,    ///< the numbers a served store gave a recorder's batch (meta database)
  machines = 7, ///< how many machines have a latest reading (readings database)
  trial = 8,    ///< a trial of a study (trials database, t/<study>/<n>)
  study = 9,    ///< a study (trials database, s/<study>)
  waiting = 10, ///< a waiting trial's place in line (trials database, w/<study>/<n>)
  words = 11,   ///< a run's words (meta database, words/<id>; format 4)
};

/// The envelope's size.
inline constexpr std::size_t seal_bytes = 8;

/// Appends an envelope to `out` whose checksum is still to be set; append the
/// payload after it, then call seal().
void begin_seal(std::string& out, sealed_kind kind,
                std::uint8_t format = format_version);

/// Sets the checksum of the envelope that starts at `out[at]`, over `key`
/// and everything after the envelope.
void seal(std::string& out, std::string_view key, std::size_t at = 0) noexcept;

/// `payload` sealed at `key`: the envelope, then a copy of it. `format` is
/// what the envelope says the payload is written in (tests make values of
/// an older format with it).
[[nodiscard]] std::string sealed(std::string_view key, sealed_kind kind,
                                 std::string_view payload,
                                 std::uint8_t format = format_version);

/// What unseal() found.
enum class seal_state {
  unsealed, ///< not sealed: a value of format 1; `payload` is all of it
  ok,       ///< sealed, of `kind`, checksum matches; `payload` follows the envelope
  damaged,  ///< sealed, but the checksum or the kind does not match
  newer,    ///< sealed by a newer format than this soma reads
};

/// Reads the envelope of `bytes`, stored at `key`; when ok, `format` (if
/// given) is the format it was written in (oldest_sealed_format to
/// newest_format).
[[nodiscard]] seal_state unseal(std::string_view key, std::string_view bytes,
                                sealed_kind kind, std::string_view& payload,
                                std::uint8_t* format = nullptr) noexcept;

/// The payload of `bytes` without checking it (all of a value of format 1):
/// for a reader that only needs a field it can check another way.
[[nodiscard]] std::string_view unchecked_payload(std::string_view bytes) noexcept;

/// The checksum of `payload` at `key` under `header` (the envelope's first
/// four bytes): the low 32 bits of XXH3-64.
[[nodiscard]] std::uint32_t checksum(std::string_view key, const unsigned char* header,
                                     std::string_view payload) noexcept;

} // namespace soma::detail
