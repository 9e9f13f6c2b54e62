#include "table.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <ostream>

#include "soma/web/csv.hpp"

namespace soma::cli {

namespace {

// Display width: count UTF-8 lead bytes, so a run called "café" lines up.
std::size_t width(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

} // namespace

table::table(std::vector<column> columns) : columns_(std::move(columns)) {
}

void table::add(std::vector<std::string> row) {
  assert(row.size() <= columns_.size());
  row.resize(columns_.size());
  rows_.push_back(std::move(row));
}

void table::print(std::ostream& out, bool header_when_empty) const {
  if (rows_.empty() && !header_when_empty)
    return;
  std::vector<std::size_t> widths;
  for (auto& c : columns_)
    widths.push_back(width(c.header));
  for (auto& row : rows_)
    for (std::size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], width(row[i]));
  auto line = [&](auto&& cell) {
    std::string text;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      std::string_view value = cell(i);
      auto pad = std::string(widths[i] - width(value), ' ');
      if (i > 0)
        text += "  ";
      if (columns_[i].side == align::right)
        text += pad;
      text += value;
      if (columns_[i].side == align::left)
        text += pad;
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << '\n';
  };
  line([&](std::size_t i) -> std::string_view { return columns_[i].header; });
  for (auto& row : rows_)
    line([&](std::size_t i) -> std::string_view { return row[i]; });
}

bool looks_numeric(std::string_view text) noexcept {
  double x = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

std::string utc(std::int64_t us) {
  auto seconds = us / 1000000, micros = us % 1000000;
  if (micros < 0) {
    micros += 1000000;
    seconds -= 1;
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm parts{};
  char day[32] = "?";
  if (gmtime_r(&t, &parts))
    std::strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &parts);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", day, static_cast<int>(micros / 1000));
  return out;
}

std::string utc_seconds(std::int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm parts{};
  char out[32] = "?";
  if (gmtime_r(&t, &parts))
    std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return out;
}

std::string duration(double us) {
  if (!(us == us)) // NaN
    return "-";
  if (us < 0)
    return "-" + duration(-us);
  char out[32];
  // Three significant digits in a unit; rounding that reaches 1000 of it
  // moves to the next unit (999.7µs is 1.00ms, not 1000µs).
  auto in = [&](double v, const char* unit) {
    const char* format = v >= 99.95 ? "%.0f%s" : v >= 9.995 ? "%.1f%s" : "%.2f%s";
    std::snprintf(out, sizeof out, format, v, unit);
    return std::string{out};
  };
  if (us < 999.5)
    return us == 0 ? "0s" : in(us, "µs");
  if (us < 999.5e3)
    return in(us / 1e3, "ms");
  if (us < 59.995e6)
    return in(us / 1e6, "s");
  // Past a minute, whole units: two of them, as a clock shows them.
  auto whole = static_cast<std::uint64_t>(us / 1e6 + 0.5); // seconds
  if (whole < 3600)
    std::snprintf(out, sizeof out, "%um%02us", static_cast<unsigned>(whole / 60),
                  static_cast<unsigned>(whole % 60));
  else if (whole < 86400)
    std::snprintf(out, sizeof out, "%uh%02um", static_cast<unsigned>(whole / 3600),
                  static_cast<unsigned>(whole / 60 % 60));
  else
    std::snprintf(out, sizeof out, "%llud%02uh", static_cast<unsigned long long>(whole / 86400),
                  static_cast<unsigned>(whole / 3600 % 24));
  return out;
}

std::string readable(std::string_view told) {
  double x = 0;
  auto [end, ec] = std::from_chars(told.data(), told.data() + told.size(), x);
  if (told.empty() || ec != std::errc{} || end != told.data() + told.size())
    return std::string{told};
  return web::readable_number(x);
}

std::string decimal(double x, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string list(const std::vector<std::string>& xs) {
  if (xs.empty())
    return "-";
  std::string out;
  for (auto& x : xs)
    out += (out.empty() ? "" : ",") + x;
  return out;
}

} // namespace soma::cli
