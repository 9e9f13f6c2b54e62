#include "soma/store/keys.hpp"

#include "soma/detail/utf8.hpp"
#include "soma/store/detail/key_bytes.hpp"

namespace soma {

caf::expected<void> check_run_id(std::string_view run) {
  auto invalid = [](std::string why) { return make_error(error_code::invalid, std::move(why)); };
  if (run.empty())
    return invalid("a run id cannot be empty: give the run a name, such as tuesday");
  if (run.size() > max_run_id)
    return invalid("the run id '" + std::string{run.substr(0, 32)} + "...' is "
                   + std::to_string(run.size()) + " bytes long; a run id has at most "
                   + std::to_string(max_run_id) + " bytes");
  for (unsigned char c : run) {
    if (c == '/')
      return invalid("the run id '" + std::string{run}
                     + "' contains '/', which separates a key's parts; use another character");
    if (c < 0x20 || c == 0x7f)
      return invalid("the run id contains a control character (byte " + std::to_string(c)
                     + "); use printable characters");
  }
  if (auto at = detail::first_not_utf8(run); at < run.size())
    return invalid("the run id is not UTF-8 text (byte "
                   + std::to_string(static_cast<unsigned char>(run[at])) + " at "
                   + std::to_string(at) + "), so no JSON or page could name it; name runs with "
                                          "text");
  return {};
}

namespace detail {

std::string run_prefix(std::string_view run) {
  std::string key = "run/";
  key += run;
  key += '/';
  return key;
}

std::string past_run(std::string_view run) {
  auto key = run_prefix(run);
  key.back() = static_cast<char>('/' + 1);
  return key;
}

std::string record_key(std::string_view run, std::uint64_t n) {
  auto key = run_prefix(run);
  for (int shift = 56; shift >= 0; shift -= 8)
    key.push_back(static_cast<char>((n >> shift) & 0xff));
  return key;
}

bool parse_record_key(std::string_view key, std::string_view& run, std::uint64_t& n) {
  if (key.size() < 4 + 1 + 1 + 8 || key.substr(0, 4) != "run/" || key[key.size() - 9] != '/')
    return false;
  run = key.substr(4, key.size() - 4 - 9);
  n = 0;
  for (size_t i = key.size() - 8; i < key.size(); ++i)
    n = (n << 8) | static_cast<unsigned char>(key[i]);
  return true;
}

std::string meta_key(std::string_view run) {
  return "run/" + std::string{run};
}

std::string words_key(std::string_view run) {
  return "words/" + std::string{run};
}

std::string printable_key(std::string_view key) {
  std::string_view run;
  std::uint64_t n = 0;
  if (parse_record_key(key, run, n))
    return "run/" + std::string{run} + "/" + std::to_string(n);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : key.substr(0, 96)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 0xf]);
    }
  }
  if (key.size() > 96)
    out += "...";
  return out;
}

std::string be64(std::uint64_t x) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i, x >>= 8)
    out[static_cast<std::size_t>(i)] = static_cast<char>(x & 0xff);
  return out;
}

std::uint64_t from_be64(std::string_view bytes) {
  std::uint64_t x = 0;
  for (auto c : bytes)
    x = (x << 8) | static_cast<unsigned char>(c);
  return x;
}

} // namespace detail

} // namespace soma
