#pragma once

/// @file
/// Facts into and out of Cap'n Proto lists: one way for every message that
/// holds facts (a fact blob and a record's summary in the store, a worker's
/// answer, a recorder's batch sent to a served store). Facts are written
/// typed (`Fact.word`/`entries`, docs/formats.md); both that and the text
/// fields of format 1 and older peers are read.

#include <string_view>
#include <vector>

#include "soma/fact.hpp"
#include "soma/schema/soma.capnp.h"

namespace soma::detail {

class run_words;

/// The engine word `s` is (schema Word), or Word::NONE for any other text.
[[nodiscard]] schema::Word word_of(std::string_view s) noexcept;

/// The text of engine word `w`; empty for NONE and for a word this soma does
/// not know (a newer soma's).
[[nodiscard]] std::string_view text_of_word(schema::Word w) noexcept;

/// Fills `out` (sized facts.size()) with `facts`, typed. Names and keys
/// holding NUL bytes are written with U+FFFD in their place (Cap'n Proto
/// text cannot hold them); a text value holding one is written as bytes.
void write_facts(capnp::List<schema::Fact>::Builder out,
                 const std::vector<fact>& facts);

/// Format 4 (a fact blob in the store): as above, but a fact's leading
/// node, began_us, took_us and value are held in its struct (Fact.held),
/// and names, keys and nodes the run's `words` number (adding the new ones)
/// are written as their numbers.
void write_facts(capnp::List<schema::Fact>::Builder out, const std::vector<fact>& facts,
                 run_words& words);

/// The facts of `in`, in order; `words` are the run's, for a fact blob of
/// format 4. Throws undecodable for an engine word this soma does not know,
/// or a word the run's words do not hold (none without `words`).
[[nodiscard]] std::vector<fact> read_facts(capnp::List<schema::Fact>::Reader in,
                                           const run_words* words = nullptr);

/// Fills `out` (sized in.size()) with `in`, typed, as write_facts does.
void write_entries(capnp::List<schema::Entry>::Builder out, const std::vector<field>& in);

/// The fields of `in`, in order; throws as read_facts does.
[[nodiscard]] std::vector<field> read_entries(capnp::List<schema::Entry>::Reader in,
                                              const run_words* words = nullptr);

/// One field of `in` as its value; throws as read_facts does.
[[nodiscard]] scalar read_value(schema::Entry::Reader in);

/// The key of an entry (its word's text, the run's word it names, or its
/// key); throws as read_facts does.
[[nodiscard]] std::string_view key_of(schema::Entry::Reader in, const run_words* words = nullptr);

/// The fields of a format-1 list of text pairs, each value read as
/// scalar_of_text reads it.
[[nodiscard]] std::vector<field> read_fields(capnp::List<schema::Field>::Reader in);

} // namespace soma::detail
