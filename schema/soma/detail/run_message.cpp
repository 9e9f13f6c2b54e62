#include "soma/detail/run_message.hpp"

#include <cstring>

namespace soma::detail {

namespace {

constexpr std::size_t word = word_bytes;

void append_word(std::string& out, std::uint64_t w) {
  char bytes[word];
  std::memcpy(bytes, &w, word);
  out.append(bytes, word);
}

void append_padded(std::string& out, const void* bytes, std::size_t n) {
  out.append(static_cast<const char*>(bytes), n);
  out.append(words_of(n) * word - n, '\0');
}

} // namespace

std::size_t run_message_size(std::string_view type, std::size_t run_bytes) noexcept {
  return word * (6 + words_of(type.size() + 1) + words_of(run_bytes));
}

std::string run_message(std::string_view type, run_shape shape, std::size_t count, const void* run) {
  auto text_words = words_of(type.size() + 1);
  auto bytes = shape.bytes(count);
  auto total = run_message_size(type, bytes);
  std::string out;
  out.reserve(total);
  append_word(out, std::uint64_t{total / word - 1} << 32); // one segment of that many words
  append_word(out, struct_pointer(0, 0, 2));
  append_word(out, list_pointer(1, byte_elements, type.size() + 1));
  append_word(out, struct_pointer(text_words, 1, 1));
  out.append(type);
  out.append(text_words * word - type.size(), '\0'); // its NUL, then zeros to a whole word
  append_word(out, shape.tag);
  append_word(out, list_pointer(0, shape.element_size, count));
  append_padded(out, run, bytes);
  return out;
}

std::optional<std::string_view> run_of(std::string_view bytes, std::string_view type, run_shape shape) noexcept {
  auto text_words = words_of(type.size() + 1);
  auto head = 6 + text_words; // the table, 3 pointers, the type, the tag, the list's pointer
  if (bytes.size() % word != 0 || bytes.size() < head * word)
    return std::nullopt;
  auto at = [&](std::size_t i) {
    std::uint64_t w;
    std::memcpy(&w, bytes.data() + i * word, word);
    return w;
  };
  if (at(0) != std::uint64_t{bytes.size() / word - 1} << 32 || at(1) != struct_pointer(0, 0, 2)
      || at(2) != list_pointer(1, byte_elements, type.size() + 1) || at(3) != struct_pointer(text_words, 1, 1)
      || at(4 + text_words) != shape.tag)
    return std::nullopt;
  auto text = bytes.substr(4 * word, text_words * word); // in bounds: head words are there
  if (text.substr(0, type.size()) != type || text.find_first_not_of('\0', type.size()) != std::string_view::npos)
    return std::nullopt;
  auto list = at(5 + text_words);
  if ((list & ((std::uint64_t{1} << 35) - 1)) != list_pointer(0, shape.element_size, 0))
    return std::nullopt;
  auto length = shape.bytes(static_cast<std::size_t>(list >> 35));
  auto run = bytes.substr(head * word);
  // The run fills its words exactly, its padding zero (checked only once
  // `length` is known to be within `run`).
  if (words_of(length) != run.size() / word || run.find_first_not_of('\0', length) != std::string_view::npos)
    return std::nullopt;
  return run.substr(0, length);
}

} // namespace soma::detail
