#include "soma/detail/run_words.hpp"

namespace soma::detail {

run_words::run_words(std::vector<std::string> words) : words_(std::move(words)), read_(words_.size()) {
  numbers_.reserve(words_.size());
  for (std::size_t i = 0; i < words_.size(); ++i)
    numbers_.emplace(words_[i], static_cast<std::uint32_t>(i + 1)); // a repeat keeps its first
}

std::uint32_t run_words::number_of(std::string_view s) {
  if (auto it = numbers_.find(s); it != numbers_.end())
    return it->second;
  if (words_.size() >= most || s.size() > longest || s.find('\0') != std::string_view::npos)
    return 0;
  words_.emplace_back(s);
  auto n = static_cast<std::uint32_t>(words_.size());
  numbers_.emplace(words_.back(), n);
  return n;
}

const std::string* run_words::at(std::uint32_t n) const noexcept {
  return n == 0 || n > words_.size() ? nullptr : &words_[n - 1];
}

} // namespace soma::detail
