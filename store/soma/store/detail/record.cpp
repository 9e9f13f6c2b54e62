#include "soma/store/detail/record.hpp"

#include <cstring>
#include <ostream>

#include "soma/schema/soma.capnp.h"
#include "soma/detail/capnp.hpp"
#include "soma/detail/compact.hpp"
#include "soma/detail/fact_lists.hpp"
#include "soma/detail/packed.hpp"
#include "soma/store/store.hpp"

namespace soma {

namespace detail {

namespace {

// Reads a format-1 message; every Cap'n Proto error becomes a store_error
// naming where the bytes came from.
template <class Root, class F>
auto read_message(std::string_view bytes, const origin& where, F&& f) {
  try {
    return read_capnp<Root>(bytes, std::forward<F>(f));
  } catch (const undecodable& e) {
    throw store_error(where.str() + " is damaged and cannot be decoded (" + e.what()
                      + "); its bytes were changed after they were written, and the rest of "
                        "the store still reads", store_trouble::damaged);
  }
}

record decode_record_v1(std::string_view bytes, const origin& where) {
  return read_message<schema::Record>(bytes, where, [](schema::Record::Reader r) {
    record x;
    x.forward = r.getForward();
    switch (r.getState()) {
      case schema::State::OK: x.state = outcome::ok; break;
      case schema::State::BROKE: x.state = outcome::broke; break;
      default: x.state = outcome::open;
    }
    x.nodes = r.getNodes();
    x.took_us = r.getTookUs();
    x.when_us = r.getWhen() * 1'000'000;
    x.summary = read_fields(r.getSummary());
    return x;
  });
}

} // namespace

std::vector<fact> decode_facts_v1(std::string_view bytes, const origin& where);
std::vector<std::string> decode_run_meta_v1(std::string_view bytes, const origin& where);

std::string origin::str() const {
  std::string out{what};
  if (!run.empty())
    out += " of forward " + std::to_string(n) + " of run '" + std::string{run} + "'";
  if (!store.empty())
    out += " in the store '" + std::string{store} + "'";
  return out;
}

void damaged_value(const origin& where, std::string_view why) {
  std::string msg = where.str() + " is damaged: " + std::string{why}
                    + "; its bytes changed after they were written, and the rest of the store "
                      "still reads";
  if (!where.store.empty())
    msg += " (`soma check --store " + std::string{where.store} + "` lists every damaged entry)";
  throw store_error(msg, store_trouble::damaged);
}

namespace {

// Reads a format-3 payload with `f`; what does not decode is damage.
template <class F>
auto read_packed(const origin& where, std::string_view what, F&& f) {
  try {
    return f();
  } catch (const undecodable& e) {
    damaged_value(where, "its checksum matches but its bytes do not decode as " + std::string{what}
                           + " (" + e.what() + ")");
  }
}

} // namespace

int open_sealed(std::string_view key, std::string_view bytes, sealed_kind kind,
                const origin& where, std::string_view& payload) {
  std::uint8_t format = 0;
  switch (unseal(key, bytes, kind, payload, &format)) {
    case seal_state::unsealed: return 1;
    case seal_state::ok: return format;
    case seal_state::newer:
      throw store_error(where.str() + " was written by a newer soma (format "
                        + std::to_string(static_cast<unsigned char>(bytes[2]))
                        + "), which this one cannot read; read it with that soma");
    default:
      damaged_value(where, "its checksum does not match its bytes");
  }
}

namespace {

// A record's state as one byte.
unsigned char state_byte(outcome x) {
  return static_cast<unsigned char>(x);
}

std::vector<field> get_fields(compact::reader& in) {
  std::vector<field> out;
  auto n = in.count(2);
  out.reserve(n);
  for (std::size_t i = 0; i < n && !in.failed; ++i) {
    auto key = in.name();
    out.emplace_back(std::move(key), in.value());
  }
  return out;
}

} // namespace

namespace {

// Appends to `out` what `put` appends, sealed at `key` as a `kind` of `format`.
template <class Put>
void sealed_into(std::string& out, std::string_view key, sealed_kind kind, std::uint8_t format,
                 Put&& put) {
  auto at = out.size();
  begin_seal(out, kind, format);
  put(out);
  seal(out, key, at);
}

} // namespace

void encode_record_into(std::string& out, const record& x, std::string_view key) {
  sealed_into(out, key, sealed_kind::record, format_version,
              [&](std::string& o) { packed::put_record(o, x); });
}

std::string encode_record(const record& x, std::string_view key) {
  std::string out;
  out.reserve(64);
  encode_record_into(out, x, key);
  return out;
}

record decode_record(std::string_view key, std::string_view bytes, const origin& where) {
  std::string_view payload;
  auto format = open_sealed(key, bytes, sealed_kind::record, where, payload);
  if (format == 1)
    return decode_record_v1(payload, where);
  if (format == 3)
    return read_packed(where, "a record", [&] { return packed::get_record(payload); });
  compact::reader in{payload};
  record x;
  x.forward = in.varint();
  auto state = in.byte();
  x.nodes = static_cast<std::uint32_t>(in.varint());
  x.took_us = compact::unzigzag(in.varint());
  x.when_us = compact::unzigzag(in.varint()) * 1'000'000;
  x.summary = get_fields(in);
  if (in.failed || !in.at_end() || state > state_byte(outcome::open))
    damaged_value(where, "its checksum matches but its bytes do not decode as a record");
  x.state = static_cast<outcome>(state);
  return x;
}

std::optional<scalar> summary_field(std::string_view key, std::string_view bytes,
                                    const origin& where, std::string_view name,
                                    std::int64_t* when_us) {
  std::string_view payload;
  auto format = open_sealed(key, bytes, sealed_kind::record, where, payload);
  if (format == 1) {
    auto r = decode_record_v1(payload, where);
    if (when_us)
      *when_us = r.when_us;
    for (auto& f : r.summary)
      if (f.key == name)
        return f.value;
    return std::nullopt;
  }
  if (format == 3)
    return read_packed(where, "a record",
                       [&] { return packed::get_summary_value(payload, name, when_us); });
  compact::reader in{payload};
  in.varint();                       // forward
  auto state = in.byte();
  in.varint();                       // nodes
  in.varint();                       // took_us
  auto when = compact::unzigzag(in.varint()) * 1'000'000;
  if (when_us)
    *when_us = when;
  std::optional<scalar> found;
  auto n = in.count(2);
  for (std::size_t i = 0; i < n && !in.failed; ++i) {
    auto field = in.name_view();
    auto value = in.value();
    if (field == name && !in.failed)
      found = std::move(value);
  }
  if (in.failed || !in.at_end() || state > state_byte(outcome::open))
    damaged_value(where, "its checksum matches but its bytes do not decode as a record");
  return found;
}

void encode_facts_into(std::string& out, const std::vector<fact>& facts, std::string_view key) {
  sealed_into(out, key, sealed_kind::facts, format_version,
              [&](std::string& o) { packed::put_facts(o, facts); });
}

std::string encode_facts(const std::vector<fact>& facts, std::string_view key) {
  std::string out;
  out.reserve(32 + facts.size() * 24);
  encode_facts_into(out, facts, key);
  return out;
}

void encode_facts_into(std::string& out, const std::vector<fact>& facts, std::string_view key,
                       run_words& words) {
  sealed_into(out, key, sealed_kind::facts, newest_format,
              [&](std::string& o) { packed::put_facts(o, facts, words); });
}

std::vector<fact> decode_facts(std::string_view key, std::string_view bytes, const origin& where,
                               const run_words* words) {
  std::string_view payload;
  auto format = open_sealed(key, bytes, sealed_kind::facts, where, payload);
  if (format == 1)
    return decode_facts_v1(payload, where);
  if (format == 3)
    return read_packed(where, "facts", [&] { return packed::get_facts(payload); });
  if (format == 4)
    return read_packed(where, "facts", [&] { return packed::get_facts(payload, words); });
  compact::reader in{payload};
  std::vector<fact> out;
  auto n = in.count(2);
  out.reserve(n);
  for (std::size_t i = 0; i < n && !in.failed; ++i) {
    auto name = in.name();
    out.push_back(fact{std::move(name), get_fields(in)});
  }
  if (in.failed || !in.at_end())
    damaged_value(where, "its checksum matches but its bytes do not decode as facts");
  return out;
}

std::string encode_run_words(const run_words& words, std::string_view key) {
  std::string out;
  sealed_into(out, key, sealed_kind::words, newest_format,
              [&](std::string& o) { packed::put_run_words(o, words); });
  return out;
}

run_words decode_run_words(std::string_view key, std::string_view bytes, const origin& where) {
  std::string_view payload;
  auto format = open_sealed(key, bytes, sealed_kind::words, where, payload);
  if (format != newest_format)
    damaged_value(where, "a run's words say format " + std::to_string(format)
                           + ", which never wrote them");
  return read_packed(where, "a run's words", [&] { return packed::get_run_words(payload); });
}

std::string encode_run_meta(const run_meta& meta, std::string_view key) {
  std::string out;
  sealed_into(out, key, sealed_kind::run_meta, format_version,
              [&](std::string& o) { packed::put_run_meta(o, meta); });
  return out;
}

run_meta decode_run_meta(std::string_view key, std::string_view bytes, const origin& where) {
  std::string_view payload;
  auto format = open_sealed(key, bytes, sealed_kind::run_meta, where, payload);
  if (format == 1)
    return run_meta{decode_run_meta_v1(payload, where), std::nullopt};
  if (format == 3)
    return read_packed(where, "run metadata", [&] { return packed::get_run_meta(payload); });
  compact::reader in{payload};
  run_meta out;
  auto n = in.count(1);
  for (std::size_t i = 0; i < n && !in.failed; ++i)
    out.summarising.push_back(in.name());
  if (auto next = in.varint(); next > 0)
    out.next = next - 1;
  if (!in.failed && !in.at_end()) {
    auto after_next = in.varint();
    if (in.at_end()) {
      // One varint after next: ended_us, in metadata without totals.
      out.ended_us = compact::unzigzag(after_next);
    } else if (after_next <= 1) {
      if (after_next == 1)
        out.ended_us = compact::unzigzag(in.varint());
      run_totals t;
      t.forwards = in.varint();
      t.broke = in.varint();
      t.took_us = compact::unzigzag(in.varint());
      t.first = compact::unzigzag(in.varint());
      t.last = compact::unzigzag(in.varint());
      t.values_kept = false; // format 2 kept no summarised numbers
      if (t.broke > t.forwards || (t.forwards > 0 && t.first > t.last))
        in.failed = true;
      out.totals = t;
    } else {
      in.failed = true;
    }
  }
  if (in.failed || !in.at_end())
    damaged_value(where, "its checksum matches but its bytes do not decode as run metadata");
  return out;
}

// Format 1: Cap'n Proto (schema/soma.capnp), read only.

std::vector<fact> decode_facts_v1(std::string_view bytes, const origin& where) {
  return read_message<schema::FactList>(bytes, where,
                                        [](schema::FactList::Reader r) { return read_facts(r.getFacts()); });
}

std::vector<std::string> decode_run_meta_v1(std::string_view bytes, const origin& where) {
  return read_message<schema::RunMeta>(bytes, where, [](schema::RunMeta::Reader r) {
    std::vector<std::string> out;
    for (auto s : r.getSummarising())
      out.emplace_back(s.cStr(), s.size());
    return out;
  });
}

} // namespace detail

} // namespace soma
