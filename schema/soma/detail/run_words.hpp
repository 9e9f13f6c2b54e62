#pragma once

/// @file
/// A run's words (format 4, docs/formats.md): the texts its fact blobs name
/// by number instead of writing them out: node names, and the names and
/// keys of a user's facts (`loss`, `value`). One dictionary per run, kept
/// beside the run's metadata (meta/words/<run>) and only ever appended to,
/// so a number once written names the same word for as long as the run
/// lives. Its writer holds it in the transaction that writes the blobs that
/// use it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace soma::detail {

class run_words {
public:
  /// Words a run's dictionary holds at most, and the longest word in bytes:
  /// a text past either is written out in full, as format 3 writes it. So
  /// the dictionary stays under 70 KiB however many names a run makes up.
  static constexpr std::size_t most = 1024;
  static constexpr std::size_t longest = 64;

  run_words() = default;
  explicit run_words(std::vector<std::string> words);

  /// The number of `s` (1 for the first word), adding it when it is new and
  /// there is room; 0 when it is written out instead (too long, a NUL in
  /// it, or the dictionary full).
  [[nodiscard]] std::uint32_t number_of(std::string_view s);

  /// The word numbered `n` (from 1); null when there is none such (the
  /// caller says what that means: damage, where a blob names it).
  [[nodiscard]] const std::string* at(std::uint32_t n) const noexcept;

  [[nodiscard]] std::size_t size() const noexcept { return words_.size(); }
  [[nodiscard]] const std::vector<std::string>& all() const noexcept { return words_; }

  /// Whether number_of added words since it was made: then it is written
  /// back with the blobs that name them.
  [[nodiscard]] bool grew() const noexcept { return words_.size() != read_; }

private:
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::vector<std::string> words_;
  std::unordered_map<std::string, std::uint32_t, hash, std::equal_to<>> numbers_;
  std::size_t read_ = 0;
};

} // namespace soma::detail
