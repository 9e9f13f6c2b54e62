#pragma once

/// @file
/// soma::fact: a name and ordered key/text pairs, the one shape every fact has
/// in a watcher, on the wire and in the store.

#include <charconv>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace soma {

/// Formats a number as the text a fact carries: integers in decimal, floating
/// point as the shortest text that reads back to the same value (2.1 is "2.1",
/// 0.1 + 0.2 is "0.30000000000000004").
template <class T>
  requires std::is_arithmetic_v<T> && (!std::is_same_v<T, bool>)
std::string text(T x) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, ec == std::errc{} ? end : buf);
}

/// One key/text pair of a fact.
struct field {
  std::string key;
  std::string value;

  field() = default;

  field(std::string k, std::string v) : key(std::move(k)), value(std::move(v)) {}

  field(std::string k, const char* v) : key(std::move(k)), value(v) {}

  field(std::string k, std::string_view v) : key(std::move(k)), value(v) {}

  /// A number, written as soma::text writes it.
  template <class T>
    requires std::is_arithmetic_v<T> && (!std::is_same_v<T, bool>)
  field(std::string k, T v) : key(std::move(k)), value(text(v)) {}

  friend bool operator==(const field&, const field&) = default;
};

/// A fact: a name and ordered key/text pairs.
///
/// The engine says `ran`, `failed`, `recalled`, `kept`, `items`, `left`,
/// `finished`, `broke` and `machine` (see soma/vocabulary.hpp); levels above
/// it say their own facts through the same door, e.g.
/// `soma::fact{"loss", {{"value", 2.1}}}`. A fact is a value type: cheap to
/// move, safe to copy, owned by whoever holds it.
struct fact {
  std::string name;
  std::vector<field> fields;

  /// The text of the first field named `key`, or nullptr when it has none.
  /// The pointer lives as long as this fact is neither changed nor destroyed.
  [[nodiscard]] const std::string* find(std::string_view key) const noexcept {
    for (auto& f : fields)
      if (f.key == key)
        return &f.value;
    return nullptr;
  }

  /// The text of the field named `key`, or an empty view when it has none.
  [[nodiscard]] std::string_view operator[](std::string_view key) const noexcept {
    auto* v = find(key);
    return v ? std::string_view{*v} : std::string_view{};
  }

  /// Whether the fact has a field named `key`.
  [[nodiscard]] bool has(std::string_view key) const noexcept {
    return find(key) != nullptr;
  }

  friend bool operator==(const fact&, const fact&) = default;
};

/// The fact as one JSON object on one line (no trailing newline), its name
/// under "fact" first and then every field in order, all values as strings:
/// `{"fact":"ran","node":"tokenize","began_us":"8","took_us":"318"}`.
[[nodiscard]] std::string to_json(const fact& x);

/// Appends what to_json returns to `out`, reusing its capacity.
void append_json(std::string& out, const fact& x);

/// Writes the fact as to_json does.
std::ostream& operator<<(std::ostream& out, const fact& x);

/// CAF inspection, so facts travel as messages and across the network.
template <class Inspector>
auto inspect(Inspector& f, field& x) {
  return f(x.key, x.value);
}

/// CAF inspection, so facts travel as messages and across the network.
template <class Inspector>
auto inspect(Inspector& f, fact& x) {
  return f(x.name, x.fields);
}

} // namespace soma
