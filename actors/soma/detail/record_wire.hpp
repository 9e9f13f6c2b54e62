#pragma once

/// @file
/// A recorder's batches and their numbers as bytes, for a store written
/// through its server (schema/remote.capnp RecordWrite, RecordNumbers).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "soma/detail/record_writer.hpp"

namespace soma::detail {

struct record_write {
  std::uint64_t recorder = 0;
  writer_options options;
  std::vector<held_forward> forwards;
};

[[nodiscard]] std::string encode_record_write(const record_write& w);

/// Throws store_error when the bytes are not a RecordWrite.
[[nodiscard]] record_write decode_record_write(std::string_view bytes);

[[nodiscard]] std::string encode_record_numbers(const record_numbers& n);

/// Throws store_error when the bytes are not RecordNumbers.
[[nodiscard]] record_numbers decode_record_numbers(std::string_view bytes);

} // namespace soma::detail
