#pragma once

/// @file
/// soma::fact: a name and ordered key/value pairs, the one shape every fact
/// has in a watcher, on the wire and in the store. A value is a soma::scalar:
/// a whole number, a real or a text.

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/scalar.hpp"

SOMA_API_BEGIN

namespace soma {

/// One key/value pair of a fact: `{"node", "embed"}`, `{"took_us", 318}`,
/// `{"value", 2.1}`.
struct field {
  std::string key;
  scalar value;

  field() = default;

  field(std::string k, scalar v) : key(std::move(k)), value(std::move(v)) {}

  friend bool operator==(const field&, const field&) = default;
};

/// A fact: a name and ordered key/value pairs.
///
/// The engine says `ran`, `failed`, `recalled`, `kept`, `items`, `left`,
/// `finished`, `broke` and `machine` (see soma/vocabulary.hpp); levels above
/// it say their own facts through the same door, e.g.
/// `soma::fact{"loss", {{"value", 2.1}}}`. A fact is a value type: cheap to
/// move, safe to copy, owned by whoever holds it.
struct fact {
  std::string name;
  std::vector<field> fields;

  /// The value of the first field named `key`, or nullptr when it has none.
  /// The pointer lives as long as this fact is neither changed nor destroyed.
  [[nodiscard]] const scalar* find(std::string_view key) const noexcept {
    for (auto& f : fields)
      if (f.key == key)
        return &f.value;
    return nullptr;
  }

  /// The value of the field named `key`, or an empty text when it has none.
  [[nodiscard]] const scalar& operator[](std::string_view key) const noexcept {
    static const scalar none;
    auto* v = find(key);
    return v ? *v : none;
  }

  /// Whether the fact has a field named `key`.
  [[nodiscard]] bool has(std::string_view key) const noexcept {
    return find(key) != nullptr;
  }

  friend bool operator==(const fact&, const fact&) = default;
};

/// The fact as one JSON object on one line (no trailing newline), its name
/// under "fact" first and then every field in order, every value as the
/// string a person reads (scalar::str), as soma::print prints it and as the
/// seed did: `{"fact":"ran","node":"tokenize","began_us":"8","took_us":"318"}`.
/// Readers' `--json` keeps numbers as JSON numbers instead.
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

SOMA_API_END
