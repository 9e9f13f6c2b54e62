#pragma once

// Writes forwards of a run straight into a store, the way a recorder does,
// with the facts a test chooses (the recorder refuses engine words from
// tell, so a test of remote facts writes them itself).

#include <string>
#include <vector>

#include "soma/fact.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/store.hpp"

namespace soma_test {

/// One forward as a test writes it: its record (forward numbered by its
/// place) and its facts.
struct written {
  soma::record r;
  std::vector<soma::fact> facts;
};

/// Writes `forwards`, numbered from `first` (0: a new run; the run's next
/// number: appending to it), and the run's metadata, in one transaction;
/// `summarising` names the facts its records summarise, as a recorder's do,
/// and `params` what the run was.
inline void write_forwards(soma::store& s, const std::string& run, std::vector<written> forwards,
                           std::uint64_t first = 0, std::vector<std::string> summarising = {},
                           soma::values params = {}) {
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    for (std::uint64_t i = 0; i < forwards.size(); ++i) {
      auto& r = forwards[i].r;
      r.forward = first + i;
      auto key = soma::detail::record_key(run, first + i);
      s.env().put(txn, dbi(soma::detail::db::records), key, soma::detail::encode_record(r, key));
      s.env().put(txn, dbi(soma::detail::db::facts), key,
                  soma::detail::encode_facts(forwards[i].facts, key));
    }
    // And its metadata, as a recorder keeps it: how many forwards it wrote,
    // so that one damage hides reads as damaged, not as missing.
    soma::detail::run_meta meta;
    meta.next = first + forwards.size();
    meta.summarising = summarising;
    meta.params = std::move(params);
    auto key = soma::detail::meta_key(run);
    s.env().put(txn, dbi(soma::detail::db::meta), key, soma::detail::encode_run_meta(meta, key));
  });
}

/// Writes one forward per element of `told`, numbered from 0, each ok at
/// unix second 1000, and the run's metadata.
inline void write_run(soma::store& s, const std::string& run,
                      const std::vector<std::vector<soma::fact>>& told) {
  std::vector<written> forwards;
  for (auto& t : told) {
    soma::record r;
    r.state = soma::outcome::ok;
    r.when_us = 1'000'000'000;
    forwards.push_back({r, t});
  }
  write_forwards(s, run, std::move(forwards));
}

} // namespace soma_test
