#pragma once

// Writes forwards of a run straight into a store, the way a recorder does,
// with the facts a test chooses (the recorder refuses engine words from
// tell, so a test of remote facts writes them itself).

#include <string>
#include <vector>

#include "soma/fact.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/record.hpp"
#include "soma/store/store.hpp"

namespace soma_test {

/// Writes one forward per element of `told`, numbered from 0, and the run's
/// metadata.
inline void write_run(soma::store& s, const std::string& run,
                      const std::vector<std::vector<soma::fact>>& told) {
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    for (std::uint64_t i = 0; i < told.size(); ++i) {
      soma::record r;
      r.forward = i;
      r.state = soma::outcome::ok;
      r.when = 1000;
      auto key = soma::detail::record_key(run, i);
      s.env().put(txn, dbi(soma::detail::db::records), key, soma::detail::encode_record(r, key));
      s.env().put(txn, dbi(soma::detail::db::facts), key, soma::detail::encode_facts(told[i], key));
    }
    // And its metadata, as a recorder keeps it: how many forwards it wrote,
    // so that one damage hides reads as damaged, not as missing.
    soma::detail::run_meta meta;
    meta.next = told.size();
    auto key = soma::detail::meta_key(run);
    s.env().put(txn, dbi(soma::detail::db::meta), key, soma::detail::encode_run_meta(meta, key));
  });
}

} // namespace soma_test
