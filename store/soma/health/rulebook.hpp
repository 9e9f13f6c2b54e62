#pragma once

/// @file
/// soma::health::rulebook: the rules a judgement applies, with their
/// settings. Nothing is registered globally: a rulebook is a value, made
/// with the shipped rules (or none), given rules of your own, and passed to
/// judge().
///
/// A rules file (`soma health --rules FILE`) overrides settings:
///
///     # a comment
///     [quiet_machine]
///     over = 3        # times its reporting interval
///     for = 10s       # s, ms, m or h; a bare number is seconds
///
///     [slow_node]
///     enabled = false
///
/// A section names a rule, each line below it one of the rule's settings.
/// Anything else is a rules_error naming the file, the line and what to
/// write instead.

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/health/rule.hpp"

SOMA_API_BEGIN

namespace soma::health {

/// A rules file, or a setting given through the API, that cannot be used.
class rules_error : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

class rulebook {
public:
  /// No rules.
  rulebook() = default;

  /// The ten rules soma ships, at their defaults (docs/health.md).
  [[nodiscard]] static rulebook shipped();

  /// Adds a rule at its defaults; rules_error when one of its name is here,
  /// or its name or defaults are not a rule's (over, for and enabled).
  void add(std::unique_ptr<rule> r);

  /// Sets one setting of one rule; rules_error naming what is known when
  /// there is no such rule or setting, or the value is out of range.
  void set(std::string_view rule, std::string_view setting, double value);

  /// Applies a rules file's text; `file` names it in errors.
  void read(std::string_view text, std::string_view file);

  /// Applies the rules file at `path`; rules_error when it cannot be read.
  void read_file(const std::string& path);

  struct entry {
    std::unique_ptr<health::rule> rule;
    health::settings settings;
  };

  [[nodiscard]] const std::vector<entry>& rules() const noexcept { return rules_; }

  /// The enabled rules, in order.
  [[nodiscard]] std::vector<const entry*> enabled() const;

  /// What the enabled rules need read, together: the most forwards and fact
  /// blobs any asks for, and trials if any does.
  [[nodiscard]] health::needs needs() const;

  /// The rule named `name` and its settings; rules_error when none is.
  [[nodiscard]] const entry& at(std::string_view name) const;

private:
  entry& find(std::string_view name);
  std::vector<entry> rules_;
};

/// A duration as a rules file gives it: "5", "5s", "500ms", "2m", "1h"
/// (seconds without a unit). Throws rules_error saying what is accepted.
[[nodiscard]] double seconds_of(std::string_view text);

} // namespace soma::health

SOMA_API_END
