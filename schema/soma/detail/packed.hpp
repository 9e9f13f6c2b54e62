#pragma once

/// @file
/// Formats 3 and 4 (docs/formats.md): a forward's record, its fact blob, its
/// run's metadata and its run's words as packed Cap'n Proto messages of
/// schema/soma.capnp (`Record`, `FactList`, `RunMeta`, `RunWords`), with
/// typed values. These are the
/// payloads; the store seals them (seal.hpp). `capnp decode --packed
/// schema/soma.capnp Record` reads one.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "soma/detail/run_words.hpp"
#include "soma/fact.hpp"
#include "soma/record.hpp"

namespace soma::detail::packed {

/// Appends `x` as a packed `Record` to `out`.
void put_record(std::string& out, const record& x);

/// Appends `facts` as a packed `FactList` to `out`.
void put_facts(std::string& out, const std::vector<fact>& facts);

/// Format 4: the same, naming texts by the run's `words` (which it adds to)
/// and holding leading fields in the fact (fact_lists.hpp).
void put_facts(std::string& out, const std::vector<fact>& facts, run_words& words);

/// Appends a run's words as a packed `RunWords` to `out`.
void put_run_words(std::string& out, const run_words& x);

/// Appends `x` as a packed `RunMeta` to `out`.
void put_run_meta(std::string& out, const run_meta& x);

/// What put_record wrote. Throws undecodable when `payload` is not one.
[[nodiscard]] record get_record(std::string_view payload);

/// What put_facts wrote, `words` the run's (format 4); throws undecodable
/// as get_record does, and for a word `words` do not hold.
[[nodiscard]] std::vector<fact> get_facts(std::string_view payload,
                                          const run_words* words = nullptr);

/// What put_run_words wrote; throws undecodable as get_record does.
[[nodiscard]] run_words get_run_words(std::string_view payload);

/// What put_run_meta wrote; throws undecodable as get_record does.
[[nodiscard]] run_meta get_run_meta(std::string_view payload);

/// The summary field `name` of the record `payload` (the last one of that
/// name), without making the rest of it; nullopt when it has none. When
/// `when_us` is given, the record's when_us goes there. Throws undecodable
/// as get_record does.
[[nodiscard]] std::optional<scalar> get_summary_value(std::string_view payload,
                                                      std::string_view name,
                                                      std::int64_t* when_us = nullptr);

} // namespace soma::detail::packed
