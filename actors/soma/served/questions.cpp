#include "soma/served/questions.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "soma/detail/capnp.hpp"
#include "soma/detail/fact_lists.hpp"
#include "soma/detail/executions.hpp"
#include "soma/detail/named_values.hpp"
#include "soma/detail/value_ranges.hpp"
#include "soma/detail/undecodable.hpp"
#include "soma/schema/remote.capnp.h"
#include "soma/store/keys.hpp"
#include "soma/store/run_status.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/wire/reading.hpp"
#include "soma/wire/served_store.hpp"
#include "soma/wire/trial.hpp"

namespace soma::served {

namespace {

using namespace soma::detail;
namespace cs = schema;

struct ask_args {
  std::string run, name;
  std::uint64_t from = 0, count = 0;
  std::optional<std::string> after;
  std::optional<std::int64_t> at;
  std::uint64_t last = 0, facts = 0;
  bool has_run = false, has_name = false;
  std::optional<std::uint64_t> before;
  bool times = false;
};

std::string encode_ask(const ask_args& a) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::Ask>();
  x.setRun(as_text(a.run));
  x.setName(as_text(a.name));
  x.setFrom(a.from);
  x.setCount(a.count);
  x.setHasAfter(a.after.has_value());
  if (a.after)
    x.setAfter(as_data(*a.after));
  x.setHasAt(a.at.has_value());
  x.setAt(a.at.value_or(0));
  x.setLast(a.last);
  x.setFacts(a.facts);
  x.setHasRun(a.has_run);
  x.setHasName(a.has_name);
  x.setHasBefore(a.before.has_value());
  x.setBefore(a.before.value_or(0));
  x.setTimes(a.times);
  return to_bytes(m);
}

ask_args decode_ask(std::string_view bytes) {
  return read_capnp<cs::Ask>(bytes, [](cs::Ask::Reader x) {
    ask_args a;
    a.run = text_of(x.getRun());
    a.name = text_of(x.getName());
    a.from = x.getFrom();
    a.count = x.getCount();
    if (x.getHasAfter())
      a.after = bytes_of(x.getAfter());
    if (x.getHasAt())
      a.at = x.getAt();
    a.last = x.getLast();
    a.facts = x.getFacts();
    a.has_run = x.getHasRun();
    a.has_name = x.getHasName();
    if (x.getHasBefore())
      a.before = x.getBefore();
    a.times = x.getTimes();
    return a;
  });
}

std::size_t capped(std::uint64_t count) {
  return static_cast<std::size_t>(std::min<std::uint64_t>(count, SIZE_MAX));
}

void put_stored(cs::Stored::Builder out, std::string_view key, std::string_view value) {
  out.setKey(as_data(key));
  out.setValue(as_data(value));
}

void put_texts(capnp::List<capnp::Text>::Builder out, const std::vector<std::string>& xs) {
  for (unsigned i = 0; i < xs.size(); ++i)
    out.set(i, as_text(xs[i]));
}

std::vector<std::string> get_texts(capnp::List<capnp::Text>::Reader in) {
  std::vector<std::string> out;
  for (auto t : in)
    out.push_back(text_of(t));
  return out;
}

// --- answers ---

cs::RunStatus wire_status(run_status s) {
  switch (s) {
    case run_status::running: return cs::RunStatus::RUNNING;
    case run_status::finished: return cs::RunStatus::FINISHED;
    case run_status::died: return cs::RunStatus::DIED;
    default: return cs::RunStatus::UNKNOWN;
  }
}

run_status status_of(cs::RunStatus s) {
  switch (s) {
    case cs::RunStatus::RUNNING: return run_status::running;
    case cs::RunStatus::FINISHED: return run_status::finished;
    case cs::RunStatus::DIED: return run_status::died;
    default: return run_status::unknown;
  }
}

std::string encode_runs(const std::vector<run_row>& rows) {
  capnp::MallocMessageBuilder m;
  auto out = m.initRoot<cs::RunRows>().initRows(static_cast<unsigned>(rows.size()));
  for (unsigned i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    auto x = out[i];
    x.setRun(as_text(r.run));
    x.setForwards(r.forwards);
    x.setBroke(r.broke);
    x.setTookUs(r.took_us);
    x.setFirst(r.first);
    x.setLast(r.last);
    if (!r.params.empty())
      put_values(x.initParams(static_cast<unsigned>(r.params.size())), r.params);
    auto tags = x.initTags(static_cast<unsigned>(r.tags.size()));
    for (unsigned t = 0; t < r.tags.size(); ++t)
      tags.set(t, as_text(r.tags[t]));
    x.setStatus(wire_status(r.status));
    x.setHow(as_text(r.how));
    if (r.ended_us) {
      x.setEnded(true);
      x.setEndedUs(*r.ended_us);
    }
    if (r.trial) {
      auto t = x.initTrial();
      t.setStudy(as_text(r.trial->study));
      t.setNumber(r.trial->number);
      t.setState(as_text(r.trial->state));
      t.setError(as_text(r.trial->error));
    }
    if (!r.executions.empty())
      put_executions(x.initExecutions(static_cast<unsigned>(r.executions.size())), r.executions);
    if (!r.summary_values.empty())
      put_ranges(x.initValues(static_cast<unsigned>(r.summary_values.size())), r.summary_values);
    if (r.duration_us) {
      x.setHasDuration(true);
      x.setDurationUs(*r.duration_us);
    }
  }
  return to_bytes(m);
}

std::vector<run_row> decode_runs(std::string_view bytes) {
  return read_capnp<cs::RunRows>(bytes, [](cs::RunRows::Reader in) {
    std::vector<run_row> out;
    for (auto x : in.getRows()) {
      run_row r{.run = text_of(x.getRun()), .forwards = x.getForwards(), .broke = x.getBroke(),
                .took_us = x.getTookUs(), .first = x.getFirst(), .last = x.getLast()};
      r.params = get_values(x.getParams());
      for (auto t : x.getTags())
        r.tags.push_back(text_of(t));
      r.status = status_of(x.getStatus());
      r.how = text_of(x.getHow());
      if (x.getEnded())
        r.ended_us = x.getEndedUs();
      if (x.hasTrial()) {
        auto t = x.getTrial();
        r.trial = run_trial{text_of(t.getStudy()), t.getNumber(), text_of(t.getState()),
                            text_of(t.getError())};
      }
      r.executions = get_executions(x.getExecutions());
      r.summary_values = get_ranges(x.getValues());
      if (x.getHasDuration())
        r.duration_us = x.getDurationUs();
      out.push_back(std::move(r));
    }
    return out;
  });
}

void put_records(capnp::List<cs::Stored>::Builder out, std::string_view run,
                 const std::vector<record>& records) {
  for (unsigned i = 0; i < records.size(); ++i) {
    auto key = record_key(run, records[i].forward);
    put_stored(out[i], key, encode_record(records[i], key));
  }
}

std::vector<record> get_records(capnp::List<cs::Stored>::Reader in, const std::string& where) {
  std::vector<record> out;
  out.reserve(in.size());
  for (auto s : in) {
    auto key = bytes_of(s.getKey());
    std::string_view run;
    std::uint64_t n = 0;
    if (!parse_record_key(key, run, n))
      throw undecodable("a record's key is no run's entry");
    auto v = s.getValue();
    out.push_back(decode_record(key, {reinterpret_cast<const char*>(v.begin()), v.size()},
                                origin{"the record", run, n, where}));
  }
  return out;
}

std::string encode_forward_page(std::string_view run, const forward_page& p) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::ForwardPart>();
  x.setTotal(p.total);
  x.setFrom(p.records.empty() ? 0 : p.records.front().forward);
  auto out = x.initRecords(static_cast<unsigned>(p.records.size()));
  for (unsigned i = 0; i < p.records.size(); ++i)
    out.set(i, as_data(encode_record(p.records[i], record_key(run, p.records[i].forward))));
  return to_bytes(m);
}

// The same, of the bytes the store keeps: passed through as they are.
std::string encode_stored_forward_page(const detail::stored_forward_page& p) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::ForwardPart>();
  x.setTotal(p.total);
  x.setFrom(p.from);
  auto out = x.initRecords(static_cast<unsigned>(p.values.size()));
  for (unsigned i = 0; i < p.values.size(); ++i)
    out.set(i, as_data(p.values[i]));
  return to_bytes(m);
}

// The records of `run` from forward `from` on; each one's seal is checked
// against the key it must have.
forward_page decode_forward_page(std::string_view bytes, std::string_view run,
                                 const std::string& where) {
  return read_capnp<cs::ForwardPart>(bytes, [&](cs::ForwardPart::Reader x) {
    forward_page p{x.getTotal(), {}};
    auto from = x.getFrom();
    auto in = x.getRecords();
    p.records.reserve(in.size());
    for (unsigned i = 0; i < in.size(); ++i) {
      auto key = record_key(run, from + i);
      auto v = in[i];
      p.records.push_back(decode_record(key, {reinterpret_cast<const char*>(v.begin()), v.size()},
                                        origin{"the record", run, from + i, where}));
    }
    return p;
  });
}

std::string encode_curve(const curve_part& p) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::CurvePart>();
  x.setFetch(p.cost == curve_cost::fetch);
  auto n = x.initForwards(static_cast<unsigned>(p.points.size()));
  auto v = x.initValues(static_cast<unsigned>(p.points.size()));
  for (unsigned i = 0; i < p.points.size(); ++i) {
    n.set(i, p.points[i].first);
    v.set(i, p.points[i].second);
  }
  auto w = x.initWhenUs(static_cast<unsigned>(p.when_us.size()));
  for (unsigned i = 0; i < p.when_us.size(); ++i)
    w.set(i, p.when_us[i]);
  x.setNext(p.next);
  x.setTotal(p.total);
  return to_bytes(m);
}

curve_part decode_curve(std::string_view bytes) {
  return read_capnp<cs::CurvePart>(bytes, [](cs::CurvePart::Reader x) {
    curve_part p;
    p.cost = x.getFetch() ? curve_cost::fetch : curve_cost::scan;
    auto n = x.getForwards();
    auto v = x.getValues();
    if (n.size() != v.size())
      throw undecodable("a curve's forwards and values differ in number");
    p.points.reserve(n.size());
    for (unsigned i = 0; i < n.size(); ++i)
      p.points.emplace_back(n[i], v[i]);
    auto w = x.getWhenUs();
    if (w.size() != 0 && w.size() != n.size())
      throw undecodable("a curve's times and values differ in number");
    p.when_us.reserve(w.size());
    for (auto when : w)
      p.when_us.push_back(when);
    p.next = x.getNext();
    p.total = x.getTotal();
    return p;
  });
}

std::string encode_facts_of(std::string_view run, std::uint64_t n, const std::vector<fact>& facts) {
  capnp::MallocMessageBuilder m;
  auto key = record_key(run, n);
  put_stored(m.initRoot<cs::Stored>(), key, encode_facts(facts, key));
  return to_bytes(m);
}

std::vector<fact> get_facts(cs::Stored::Reader s, const std::string& where) {
  auto key = bytes_of(s.getKey());
  std::string_view run;
  std::uint64_t n = 0;
  if (!parse_record_key(key, run, n))
    throw undecodable("a fact blob's key is no run's entry");
  auto v = s.getValue();
  return decode_facts(key, {reinterpret_cast<const char*>(v.begin()), v.size()},
                      origin{"the fact blob", run, n, where});
}

std::vector<fact> decode_facts_of(std::string_view bytes, const std::string& where) {
  return read_capnp<cs::Stored>(bytes, [&](cs::Stored::Reader s) { return get_facts(s, where); });
}

std::string encode_nodes(const nodes_part& p) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::NodesPart>();
  auto rows = x.initRows(static_cast<unsigned>(p.rows.size()));
  for (unsigned i = 0; i < p.rows.size(); ++i) {
    auto& r = p.rows[i];
    auto y = rows[i];
    y.setNode(as_text(r.node));
    y.setRan(r.ran);
    y.setRecalled(r.recalled);
    y.setFailed(r.failed);
    y.setTookUs(r.took_us);
    put_texts(y.initHosts(static_cast<unsigned>(r.hosts.size())), r.hosts);
    put_texts(y.initDevices(static_cast<unsigned>(r.devices.size())), r.devices);
  }
  x.setNext(p.next);
  x.setTotal(p.total);
  return to_bytes(m);
}

nodes_part decode_nodes(std::string_view bytes) {
  return read_capnp<cs::NodesPart>(bytes, [](cs::NodesPart::Reader x) {
    nodes_part p;
    for (auto y : x.getRows()) {
      node_row r;
      r.node = text_of(y.getNode());
      r.ran = y.getRan();
      r.recalled = y.getRecalled();
      r.failed = y.getFailed();
      r.took_us = y.getTookUs();
      r.hosts = get_texts(y.getHosts());
      r.devices = get_texts(y.getDevices());
      p.rows.push_back(std::move(r));
    }
    p.next = x.getNext();
    p.total = x.getTotal();
    return p;
  });
}

std::string encode_hosts(const hosts_part& p) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::HostsPart>();
  auto rows = x.initRows(static_cast<unsigned>(p.rows.size()));
  for (unsigned i = 0; i < p.rows.size(); ++i) {
    rows[i].setHost(as_text(p.rows[i].host));
    rows[i].setSlices(p.rows[i].slices);
    rows[i].setTookUs(p.rows[i].took_us);
    rows[i].setTripsUs(i < p.trips.size() ? p.trips[i] : 0);
  }
  std::vector<fact> machines;
  for (auto& [host, f] : p.machines)
    machines.push_back(f);
  write_facts(x.initMachines(static_cast<unsigned>(machines.size())), machines);
  x.setNext(p.next);
  x.setTotal(p.total);
  return to_bytes(m);
}

hosts_part decode_hosts(std::string_view bytes) {
  return read_capnp<cs::HostsPart>(bytes, [](cs::HostsPart::Reader x) {
    hosts_part p;
    for (auto y : x.getRows()) {
      p.rows.push_back(host_row{text_of(y.getHost()), y.getSlices(), y.getTookUs(), 0});
      p.trips.push_back(y.getTripsUs());
    }
    for (auto& f : read_facts(x.getMachines()))
      p.machines.insert_or_assign(std::string{f["host"].text()}, f);
    p.next = x.getNext();
    p.total = x.getTotal();
    return p;
  });
}

std::string encode_tails(const tails_part& p) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::TailsPart>();
  auto tails = x.initTails(static_cast<unsigned>(p.tails.size()));
  for (unsigned i = 0; i < p.tails.size(); ++i) {
    auto& t = p.tails[i];
    auto y = tails[i];
    y.setRun(as_text(t.run));
    y.setFirst(t.first);
    y.setHasEnded(t.ended_us.has_value());
    y.setEndedUs(t.ended_us.value_or(0));
    put_records(y.initRecords(static_cast<unsigned>(t.records.size())), t.run, t.records);
    auto facts = y.initFacts(static_cast<unsigned>(t.facts.size()));
    auto first = t.records.size() - t.facts.size();
    for (unsigned j = 0; j < t.facts.size(); ++j) {
      auto key = record_key(t.run, t.records[first + j].forward);
      put_stored(facts[j], key, encode_facts(t.facts[j], key));
    }
  }
  x.setHasAfter(p.after.has_value());
  if (p.after)
    x.setAfter(as_text(*p.after));
  x.setCut(p.cut);
  return to_bytes(m);
}

tails_part decode_tails(std::string_view bytes, const std::string& where) {
  return read_capnp<cs::TailsPart>(bytes, [&](cs::TailsPart::Reader x) {
    tails_part p;
    for (auto y : x.getTails()) {
      run_tail t;
      t.run = text_of(y.getRun());
      t.first = y.getFirst();
      if (y.getHasEnded())
        t.ended_us = y.getEndedUs();
      t.records = get_records(y.getRecords(), where);
      if (y.getFacts().size() > t.records.size())
        throw undecodable("a run's tail has more fact blobs than records");
      for (auto s : y.getFacts())
        t.facts.push_back(get_facts(s, where));
      p.tails.push_back(std::move(t));
    }
    if (x.getHasAfter())
      p.after = text_of(x.getAfter());
    p.cut = x.getCut();
    if (p.cut && p.tails.empty())
      throw undecodable("a part of tails cut short holds no tail");
    return p;
  });
}

std::string encode_machines(const std::vector<std::pair<std::string, reading>>& rows) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::Machines>();
  auto ids = x.initIds(static_cast<unsigned>(rows.size()));
  auto rs = x.initReadings(static_cast<unsigned>(rows.size()));
  for (unsigned i = 0; i < rows.size(); ++i) {
    ids.set(i, as_text(rows[i].first));
    rs.set(i, as_data(wire::encode_reading(rows[i].second)));
  }
  return to_bytes(m);
}

std::vector<std::pair<std::string, reading>> decode_machines(std::string_view bytes) {
  return read_capnp<cs::Machines>(bytes, [](cs::Machines::Reader x) {
    std::vector<std::pair<std::string, reading>> out;
    auto ids = x.getIds();
    auto rs = x.getReadings();
    if (ids.size() != rs.size())
      throw undecodable("machines and readings differ in number");
    for (unsigned i = 0; i < ids.size(); ++i)
      out.emplace_back(text_of(ids[i]), wire::decode_reading(bytes_of(rs[i])));
    return out;
  });
}

// Every machine's readings, flat: a machine's id beside each of its own,
// and where the next part goes on.
std::string encode_machines_back(const machines_back_part& p) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::Machines>();
  std::size_t n = 0;
  for (auto& [id, rs] : p.machines)
    n += rs.size();
  auto ids = x.initIds(static_cast<unsigned>(n));
  auto rs = x.initReadings(static_cast<unsigned>(n));
  unsigned i = 0;
  for (auto& [id, mine] : p.machines)
    for (auto& r : mine) {
      ids.set(i, as_text(id));
      rs.set(i++, as_data(wire::encode_reading(r)));
    }
  x.setHasAfter(p.after.has_value());
  if (p.after)
    x.setAfter(as_text(*p.after));
  return to_bytes(m);
}

machines_back_part decode_machines_back(std::string_view bytes) {
  return read_capnp<cs::Machines>(bytes, [](cs::Machines::Reader x) {
    machines_back_part out;
    auto ids = x.getIds();
    auto rs = x.getReadings();
    if (ids.size() != rs.size())
      throw undecodable("machines and readings differ in number");
    for (unsigned i = 0; i < ids.size(); ++i) {
      auto id = text_of(ids[i]);
      if (out.machines.empty() || out.machines.back().first != id)
        out.machines.emplace_back(std::move(id), std::vector<reading>{});
      out.machines.back().second.push_back(wire::decode_reading(bytes_of(rs[i])));
    }
    if (x.getHasAfter())
      out.after = text_of(x.getAfter());
    return out;
  });
}

std::string encode_readings(const std::vector<reading>& rs) {
  std::vector<std::pair<std::string, reading>> rows;
  for (auto& r : rs)
    rows.emplace_back(r.id, r);
  return encode_machines(rows);
}

std::vector<reading> decode_readings(std::string_view bytes) {
  std::vector<reading> out;
  for (auto& [id, r] : decode_machines(bytes))
    out.push_back(std::move(r));
  return out;
}

std::string encode_studies(const studies_part& p) {
  auto& xs = p.studies;
  capnp::MallocMessageBuilder m;
  auto root = m.initRoot<cs::Studies>();
  root.setHasAfter(p.after.has_value());
  if (p.after)
    root.setAfter(as_text(*p.after));
  auto out = root.initStudies(static_cast<unsigned>(xs.size()));
  for (unsigned i = 0; i < xs.size(); ++i) {
    auto& s = xs[i];
    out[i].setStudy(as_data(wire::encode_study(s.study)));
    out[i].setWaiting(s.waiting);
    out[i].setClaimed(s.claimed);
    out[i].setDone(s.done);
    out[i].setBroke(s.broke);
    out[i].setAbandoned(s.abandoned);
  }
  return to_bytes(m);
}

studies_part decode_studies(std::string_view bytes) {
  return read_capnp<cs::Studies>(bytes, [](cs::Studies::Reader x) {
    studies_part out;
    for (auto s : x.getStudies())
      out.studies.push_back({wire::decode_study(bytes_of(s.getStudy())), s.getWaiting(),
                             s.getClaimed(), s.getDone(), s.getBroke(), s.getAbandoned()});
    if (x.getHasAfter())
      out.after = text_of(x.getAfter());
    return out;
  });
}

std::string encode_trials(const std::vector<trial_row>& xs) {
  capnp::MallocMessageBuilder m;
  auto out = m.initRoot<cs::Trials>().initTrials(static_cast<unsigned>(xs.size()));
  for (unsigned i = 0; i < xs.size(); ++i)
    out.set(i, as_data(wire::encode_trial(xs[i])));
  return to_bytes(m);
}

std::vector<trial_row> decode_trials(std::string_view bytes) {
  return read_capnp<cs::Trials>(bytes, [](cs::Trials::Reader x) {
    std::vector<trial_row> out;
    for (auto t : x.getTrials())
      out.push_back(wire::decode_trial(bytes_of(t)));
    return out;
  });
}

std::string encode_cache_rows(const std::vector<cache_entry_row>& xs) {
  capnp::MallocMessageBuilder m;
  auto out = m.initRoot<cs::CacheRows>().initRows(static_cast<unsigned>(xs.size()));
  for (unsigned i = 0; i < xs.size(); ++i) {
    auto& r = xs[i].row;
    out[i].setKey(as_data(xs[i].key));
    out[i].setNode(as_text(r.node));
    out[i].setType(as_text(r.type));
    out[i].setVersion(as_text(r.version));
    out[i].setBytes(r.bytes);
    out[i].setKeptAt(r.kept_at);
  }
  return to_bytes(m);
}

std::vector<cache_entry_row> decode_cache_rows(std::string_view bytes) {
  return read_capnp<cs::CacheRows>(bytes, [](cs::CacheRows::Reader x) {
    std::vector<cache_entry_row> out;
    for (auto r : x.getRows())
      out.push_back({bytes_of(r.getKey()),
                     cache_row{text_of(r.getNode()), text_of(r.getType()), text_of(r.getVersion()),
                               r.getBytes(), r.getKeptAt()}});
    return out;
  });
}

// How often a client asks a server how far its check is.
constexpr std::chrono::milliseconds check_asked_every{250};

struct check_step {
  check_report report;
  bool done = false;
  std::uint64_t total = 0;
};

} // namespace

std::string encode_check_step(const check_report& r, bool done, std::uint64_t total) {
  capnp::MallocMessageBuilder m;
  auto x = m.initRoot<cs::CheckReport>();
  x.setDone(done);
  x.setTotal(total);
  x.setComplete(r.complete);
  x.setEntries(r.entries);
  auto d = x.initDamaged(static_cast<unsigned>(r.damaged.size()));
  for (unsigned i = 0; i < r.damaged.size(); ++i) {
    d[i].setDatabase(as_text(r.damaged[i].database));
    d[i].setKey(as_text(r.damaged[i].key));
    d[i].setWhat(as_text(r.damaged[i].what));
  }
  return to_bytes(m);
}

namespace {

check_step decode_check(std::string_view bytes) {
  return read_capnp<cs::CheckReport>(bytes, [](cs::CheckReport::Reader x) {
    check_step s;
    s.done = x.getDone();
    s.total = x.getTotal();
    s.report.complete = x.getComplete();
    s.report.entries = x.getEntries();
    for (auto d : x.getDamaged())
      s.report.damaged.push_back({text_of(d.getDatabase()), text_of(d.getKey()), text_of(d.getWhat())});
    return s;
  });
}

} // namespace

std::string answer_question(answers& a, store_op op, std::string_view bytes) {
  ask_args q;
  try {
    q = decode_ask(bytes);
  } catch (const undecodable& e) {
    throw store_error("a question ('" + std::string{info(op).name} + "') whose bytes are no question ("
                      + e.what() + ")", store_trouble::invalid);
  }
  auto count = capped(q.count);
  switch (op) {
    case store_op::ask_runs: return encode_runs(a.runs(q.after, count));
    case store_op::ask_run: return encode_runs({a.run_summary(q.run)});
    case store_op::ask_forwards:
      // On the server, whose answers are the store's own: the stored bytes,
      // which the client checks (their seals), neither decoded nor encoded here.
      if (auto stored = a.stored_forwards(q.run, q.from, count))
        return encode_stored_forward_page(*stored);
      return encode_forward_page(q.run, a.forwards(q.run, q.from, count));
    case store_op::ask_curve: return encode_curve(a.curve(q.run, q.name, q.from, count, q.times));
    case store_op::ask_facts: return encode_facts_of(q.run, q.from, a.facts(q.run, q.from));
    case store_op::ask_nodes: return encode_nodes(a.nodes(q.run, q.from, count));
    case store_op::ask_hosts: return encode_hosts(a.hosts(q.run, q.from, count));
    case store_op::ask_tails: {
      tail_options o;
      o.last = capped(q.last);
      o.at = q.at;
      o.facts = capped(q.facts);
      if (q.has_run)
        o.run = q.run;
      o.before = q.before;
      return encode_tails(a.tails(o, q.after, count));
    }
    case store_op::ask_standing: return encode_machines(a.standing(q.after, count));
    case store_op::ask_readings: return encode_readings(a.readings(q.name, q.at, count));
    case store_op::ask_readings_back:
      return encode_readings(a.readings_back(q.name, q.at.value_or(0), count));
    case store_op::ask_studies: return encode_studies(a.studies(q.after));
    case store_op::ask_trials: return encode_trials(a.trials(q.name, q.from, count));
    case store_op::ask_study: return wire::encode_study(a.study(q.name));
    case store_op::ask_cache:
      return encode_cache_rows(
        a.cache_entries(q.has_name ? std::optional<std::string>{q.name} : std::nullopt, q.after, count));
    case store_op::ask_check: { // in one step (a session steps through it: session.cpp)
      auto r = a.check({});
      return encode_check_step(r, true, r.entries);
    }
    case store_op::ask_version: return wire::encode_store_version(a.version());
    case store_op::ask_readings_back_all:
      return encode_machines_back(a.readings_back_all(q.at.value_or(0), q.count, q.after));
    default:
      throw store_error("'" + std::string{info(op).name} + "' is no reader's question",
                        store_trouble::invalid);
  }
}

// --- the client ---

std::string remote_answers::fetched(store_op op, std::string ask) {
  auto bytes = call_(op, std::move(ask));
  ++asked_;
  received_ += bytes.size();
  for (auto seen = largest_.load(); bytes.size() > seen && !largest_.compare_exchange_weak(seen, bytes.size());) {
  }
  return bytes;
}

template <class F>
auto remote_answers::asked(store_op op, std::string ask, F&& decode) {
  auto bytes = fetched(op, std::move(ask));
  try {
    return decode(bytes);
  } catch (const undecodable& e) {
    throw store_error("the served store " + where_ + " answered '" + std::string{info(op).name}
                      + "' with bytes that are not its answer (" + e.what()
                      + "); is it a soma-node of this version?", store_trouble::damaged);
  }
}

std::vector<run_row> remote_answers::runs(const std::optional<std::string>& after,
                                          std::size_t count) {
  return asked(store_op::ask_runs, encode_ask({.count = count, .after = after}), decode_runs);
}

run_row remote_answers::run_summary(std::string_view run) {
  auto rows = asked(store_op::ask_run, encode_ask({.run = std::string{run}}), decode_runs);
  if (rows.size() != 1)
    throw store_error("the served store " + where_ + " answered 'ask.run' with "
                      + std::to_string(rows.size()) + " rows", store_trouble::damaged);
  return rows.front();
}

// A full part with more after it is followed by a question for the next,
// sent before this one is decoded, so the server reads the next part while
// this client decodes (a reader of a whole run asks for them in order).
forward_page remote_answers::forwards(std::string_view run, std::uint64_t from, std::size_t count) {
  auto ask = [&](std::uint64_t at) {
    return encode_ask({.run = std::string{run}, .from = at, .count = count});
  };
  std::optional<std::future<std::string>> ready;
  {
    std::lock_guard hold{prefetch_lock_};
    if (prefetch_ && prefetch_->run == run && prefetch_->from == from && prefetch_->count == count)
      ready = std::move(prefetch_->bytes);
    prefetch_.reset();
  }
  auto bytes = ready ? ready->get() : fetched(store_op::ask_forwards, ask(from));
  try {
    std::uint64_t total = 0;
    std::size_t got = 0;
    read_capnp<cs::ForwardPart>(bytes, [&](cs::ForwardPart::Reader x) {
      total = x.getTotal();
      got = x.getRecords().size();
      return 0;
    });
    if (count >= detail::forwards_per_part && got == count && from + got < total) {
      std::lock_guard hold{prefetch_lock_};
      prefetch_ = prefetch{std::string{run}, from + got, count,
                           std::async(std::launch::async, [this, next = ask(from + got)]() mutable {
                             return fetched(store_op::ask_forwards, std::move(next));
                           })};
    }
    return decode_forward_page(bytes, run, where_);
  } catch (const undecodable& e) {
    throw store_error("the served store " + where_ + " answered 'ask.forwards' with bytes that "
                      "are not its answer (" + std::string{e.what()} + "); is it a soma-node of "
                      "this version?", store_trouble::damaged);
  }
}

curve_part remote_answers::curve(std::string_view run, std::string_view name, std::uint64_t from,
                                 std::size_t count, bool times) {
  return asked(store_op::ask_curve,
               encode_ask({.run = std::string{run}, .name = std::string{name}, .from = from,
                           .count = count, .times = times}),
               decode_curve);
}

std::vector<fact> remote_answers::facts(std::string_view run, std::uint64_t n) {
  return asked(store_op::ask_facts, encode_ask({.run = std::string{run}, .from = n}),
               [&](std::string_view b) { return decode_facts_of(b, where_); });
}

nodes_part remote_answers::nodes(std::string_view run, std::uint64_t from, std::size_t count) {
  return asked(store_op::ask_nodes, encode_ask({.run = std::string{run}, .from = from, .count = count}),
               decode_nodes);
}

hosts_part remote_answers::hosts(std::string_view run, std::uint64_t from, std::size_t count) {
  return asked(store_op::ask_hosts, encode_ask({.run = std::string{run}, .from = from, .count = count}),
               decode_hosts);
}

tails_part remote_answers::tails(const tail_options& o, const std::optional<std::string>& after,
                                 std::size_t count) {
  ask_args q{.run = o.run.value_or(""), .count = count, .after = after, .at = o.at,
             .last = o.last, .facts = o.facts, .has_run = o.run.has_value(), .before = o.before};
  return asked(store_op::ask_tails, encode_ask(q), [&](std::string_view b) { return decode_tails(b, where_); });
}

std::vector<std::pair<std::string, reading>>
remote_answers::standing(const std::optional<std::string>& after, std::size_t count) {
  return asked(store_op::ask_standing, encode_ask({.count = count, .after = after}), decode_machines);
}

std::vector<reading> remote_answers::readings(const std::string& id,
                                              std::optional<std::int64_t> after_us,
                                              std::size_t count) {
  return asked(store_op::ask_readings, encode_ask({.name = id, .count = count, .at = after_us}),
               decode_readings);
}

std::vector<reading> remote_answers::readings_back(const std::string& id, std::int64_t at_us,
                                                   std::size_t count) {
  return asked(store_op::ask_readings_back, encode_ask({.name = id, .count = count, .at = at_us}),
               decode_readings);
}

machines_back_part remote_answers::readings_back_all(std::int64_t at_us, std::size_t per_machine,
                                                     const std::optional<std::string>& after) {
  auto part = asked(store_op::ask_readings_back_all,
                    encode_ask({.count = per_machine, .after = after, .at = at_us}),
                    decode_machines_back);
  // A part must go on past where it began, or the walk would never end.
  if (part.after && after && *part.after <= *after)
    throw store_error("the served store " + where_ + " answered 'ask.readings_back_all' after '"
                        + *after + "' with a part that ends at '" + *part.after + "'",
                      store_trouble::damaged);
  return part;
}

studies_part remote_answers::studies(const std::optional<std::string>& after) {
  auto part = asked(store_op::ask_studies, encode_ask({.after = after}), decode_studies);
  if (part.after && after && *part.after <= *after)
    throw store_error("the served store " + where_ + " answered 'ask.studies' after '" + *after
                        + "' with a part that ends at '" + *part.after + "'",
                      store_trouble::damaged);
  return part;
}

std::vector<trial_row> remote_answers::trials(std::string_view study, std::uint64_t from,
                                              std::size_t count) {
  return asked(store_op::ask_trials, encode_ask({.name = std::string{study}, .from = from, .count = count}),
               decode_trials);
}

study_row remote_answers::study(std::string_view name) {
  return asked(store_op::ask_study, encode_ask({.name = std::string{name}}), wire::decode_study);
}

std::vector<cache_entry_row> remote_answers::cache_entries(const std::optional<std::string>& node,
                                                           const std::optional<std::string>& after,
                                                           std::size_t count) {
  return asked(store_op::ask_cache,
               encode_ask({.name = node.value_or(""), .count = count, .after = after,
                           .has_name = node.has_value()}),
               decode_cache_rows);
}

// The server walks the store in a check of its own; each call says how far
// it is, until the last gives its report.
check_report remote_answers::check(const check_progress& progress) {
  for (;;) {
    auto step = asked(store_op::ask_check, encode_ask({}), decode_check);
    if (step.done) {
      if (progress)
        (void)progress(step.report.entries, step.total);
      return std::move(step.report);
    }
    if (progress && !progress(step.report.entries, step.total)) {
      step.report.complete = false;
      return std::move(step.report);
    }
    std::this_thread::sleep_for(check_asked_every);
  }
}

std::uint64_t remote_answers::version() {
  return asked(store_op::ask_version, encode_ask({}), wire::decode_store_version);
}

} // namespace soma::served
