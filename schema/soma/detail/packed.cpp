#include "soma/detail/packed.hpp"

#include <capnp/message.h>
#include <capnp/serialize-packed.h>
#include <kj/io.h>

#include <memory>

#include "soma/detail/capnp.hpp"
#include "soma/detail/fact_lists.hpp"
#include "soma/detail/executions.hpp"
#include "soma/detail/named_values.hpp"
#include "soma/detail/packing.hpp"
#include "soma/detail/run_words.hpp"
#include "soma/detail/value_ranges.hpp"
#include "soma/schema/soma.capnp.h"

namespace soma::detail::packed {

namespace {

// A thread's own buffer of `Use::words` words (one per use: building,
// reading), zeroed, made at its first use and
// kept until the thread ends. On the heap rather than in the thread's TLS
// block: libsoma's TLS is static (the store's fault guard is initial-exec,
// soma/store/detail/guard.cpp), and a library with static TLS that a
// program loads with dlopen (the Python module) gets only the little glibc
// keeps spare for it; 16 KiB of buffers there failed the module's import.
template <class Use>
kj::ArrayPtr<capnp::word> thread_buffer() {
  thread_local std::unique_ptr<capnp::word[]> words;
  if (!words)
    words.reset(new capnp::word[Use::words]());
  return kj::arrayPtr(words.get(), Use::words);
}

// The first segment every message is built in: a forward's record and facts
// fit (a few hundred bytes), so building one allocates nothing. Zeroed, as
// MallocMessageBuilder wants it, and zeroed again by its destructor.
struct scratch {
  static constexpr unsigned words = 1024;
};

// Builds a message with `build` and appends it, packed (packing.hpp), to
// `out`.
template <class Root, class Build>
void put(std::string& out, Build&& build) {
  capnp::MallocMessageBuilder msg{thread_buffer<scratch>()};
  build(msg.initRoot<Root>());
  append_packed(out, msg);
}

// The segment a message is unpacked into when it fits: a record, a run's
// metadata or a fact blob does, so reading one allocates nothing for it
// (a reader on a store of 10,000 runs reads 10,000 metadata). Not shared by
// a read inside another's `f` (none does today; `unpacking` keeps it so).
struct unpacked {
  static constexpr unsigned words = 1024;
};
thread_local bool unpacking = false;

// Reads `payload` as one packed message whose root is `Root` and gives the
// root to `f`. A message may take at most 64 words unpacked for each byte
// packed (a legible one takes under 2), so damage that claims a huge message
// is refused before anything is allocated for it. Every error of Cap'n
// Proto's, and bytes after the message, is undecodable.
template <class Root, class F>
auto get(std::string_view payload, F&& f) {
  return capnp_errors_as([](std::string_view what) { return undecodable(std::string{what}); }, [&] {
    kj::ArrayInputStream in{
      kj::arrayPtr(reinterpret_cast<const kj::byte*>(payload.data()), payload.size())};
    capnp::ReaderOptions options;
    options.traversalLimitInWords = 64 * payload.size() + 64;
    bool mine = !unpacking;
    struct release {
      bool mine;
      ~release() {
        if (mine)
          unpacking = false;
      }
    } done{mine};
    unpacking = true;
    capnp::PackedMessageReader reader{
      in, options, mine ? thread_buffer<unpacked>() : kj::ArrayPtr<capnp::word>{}};
    auto result = f(reader.template getRoot<Root>());
    if (in.tryGetReadBuffer().size() != 0)
      throw undecodable("bytes are left after the message");
    return result;
  });
}

outcome state_of(schema::State s) {
  switch (s) {
    case schema::State::OK: return outcome::ok;
    case schema::State::BROKE: return outcome::broke;
    case schema::State::OPEN: return outcome::open;
  }
  throw undecodable("a record's state is " + std::to_string(static_cast<unsigned>(s))
                    + ", which this soma does not know");
}

schema::State state_of(outcome s) {
  switch (s) {
    case outcome::ok: return schema::State::OK;
    case outcome::broke: return schema::State::BROKE;
    default: return schema::State::OPEN;
  }
}

} // namespace

void put_record(std::string& out, const record& x) {
  put<schema::Record>(out, [&](schema::Record::Builder r) {
    r.setForward(x.forward);
    r.setState(state_of(x.state));
    r.setNodes(x.nodes);
    r.setTookUs(x.took_us);
    r.setWhen(seconds_of(x.when_us));
    r.setWhenSubUs(sub_second_us(x.when_us));
    if (!x.summary.empty())
      write_entries(r.initValues(static_cast<unsigned>(x.summary.size())), x.summary);
  });
}

record get_record(std::string_view payload) {
  return get<schema::Record>(payload, [](schema::Record::Reader r) {
    record x;
    x.forward = r.getForward();
    x.state = state_of(r.getState());
    x.nodes = r.getNodes();
    x.took_us = r.getTookUs();
    x.when_us = when_us_of(r.getWhen(), r.getWhenSubUs());
    x.summary = r.hasValues() ? read_entries(r.getValues()) : read_fields(r.getSummary());
    return x;
  });
}

std::optional<scalar> get_summary_value(std::string_view payload, std::string_view name,
                                        std::int64_t* when_us) {
  return get<schema::Record>(payload, [&](schema::Record::Reader r) {
    state_of(r.getState()); // a state this soma does not know is damage here too
    if (when_us)
      *when_us = when_us_of(r.getWhen(), r.getWhenSubUs());
    std::optional<scalar> found;
    if (r.hasValues()) {
      for (auto e : r.getValues())
        if (key_of(e) == name)
          found = read_value(e);
    } else {
      for (auto f : r.getSummary())
        if (std::string_view{f.getKey().cStr(), f.getKey().size()} == name)
          found = scalar_of_text({f.getValue().cStr(), f.getValue().size()});
    }
    return found;
  });
}

void put_facts(std::string& out, const std::vector<fact>& facts) {
  put<schema::FactList>(out, [&](schema::FactList::Builder r) {
    write_facts(r.initFacts(static_cast<unsigned>(facts.size())), facts);
  });
}

void put_facts(std::string& out, const std::vector<fact>& facts, run_words& words) {
  put<schema::FactList>(out, [&](schema::FactList::Builder r) {
    write_facts(r.initFacts(static_cast<unsigned>(facts.size())), facts, words);
  });
}

std::vector<fact> get_facts(std::string_view payload, const run_words* words) {
  return get<schema::FactList>(
    payload, [&](schema::FactList::Reader r) { return read_facts(r.getFacts(), words); });
}

void put_run_words(std::string& out, const run_words& x) {
  put<schema::RunWords>(out, [&](schema::RunWords::Builder r) {
    auto words = r.initWords(static_cast<unsigned>(x.size()));
    for (unsigned i = 0; i < x.size(); ++i)
      words.set(i, as_text(x.all()[i]));
  });
}

run_words get_run_words(std::string_view payload) {
  return get<schema::RunWords>(payload, [](schema::RunWords::Reader r) {
    std::vector<std::string> words;
    words.reserve(r.getWords().size());
    for (auto w : r.getWords())
      words.push_back(text_of(w));
    return run_words{std::move(words)};
  });
}

void put_run_meta(std::string& out, const run_meta& x) {
  put<schema::RunMeta>(out, [&](schema::RunMeta::Builder r) {
    auto names = r.initSummarising(static_cast<unsigned>(x.summarising.size()));
    for (unsigned i = 0; i < x.summarising.size(); ++i)
      names.set(i, as_text(x.summarising[i]));
    if (x.next) {
      r.setHasNext(true);
      r.setNext(*x.next);
    }
    if (x.ended_us) {
      r.setEnded(true);
      r.setEndedUs(*x.ended_us);
    }
    if (x.totals) {
      auto t = r.initTotals();
      t.setForwards(x.totals->forwards);
      t.setBroke(x.totals->broke);
      t.setTookUs(x.totals->took_us);
      t.setFirst(x.totals->first);
      t.setLast(x.totals->last);
      if (!x.totals->values.empty())
        put_ranges(t.initValues(static_cast<unsigned>(x.totals->values.size())), x.totals->values);
      t.setValuesKept(x.totals->values_kept);
      t.setFirstUs(x.totals->first_us);
      t.setEndUs(x.totals->end_us);
    }
    if (!x.params.empty())
      put_values(r.initParams(static_cast<unsigned>(x.params.size())), x.params);
    if (!x.tags.empty()) {
      auto tags = r.initTags(static_cast<unsigned>(x.tags.size()));
      for (unsigned i = 0; i < x.tags.size(); ++i)
        tags.set(i, as_text(x.tags[i]));
    }
    if (x.writer) {
      auto w = r.initWriter();
      w.setHost(as_text(x.writer->host));
      w.setBoot(as_text(x.writer->boot));
      w.setPid(x.writer->pid);
      w.setStarted(x.writer->started);
      w.setClient(as_text(x.writer->client));
    }
    if (x.dropped_us) {
      r.setDropped(true);
      r.setDroppedUs(*x.dropped_us);
    }
    if (!x.executions.empty())
      put_executions(r.initExecutions(static_cast<unsigned>(x.executions.size())), x.executions);
  });
}

run_meta get_run_meta(std::string_view payload) {
  return get<schema::RunMeta>(payload, [](schema::RunMeta::Reader r) {
    run_meta x;
    for (auto s : r.getSummarising())
      x.summarising.push_back(text_of(s));
    if (r.getHasNext())
      x.next = r.getNext();
    if (r.getEnded())
      x.ended_us = r.getEndedUs();
    if (r.hasTotals()) {
      auto t = r.getTotals();
      run_totals y{t.getForwards(), t.getBroke(), t.getTookUs(), t.getFirst(), t.getLast(),
                   get_ranges(t.getValues()), t.getValuesKept(), t.getFirstUs(), t.getEndUs()};
      if (y.broke > y.forwards || (y.forwards > 0 && y.first > y.last))
        throw undecodable("its totals cannot be: more broke than forwards, or first after last");
      x.totals = std::move(y);
    }
    x.params = get_values(r.getParams());
    for (auto t : r.getTags())
      x.tags.push_back(text_of(t));
    if (r.hasWriter()) {
      auto w = r.getWriter();
      x.writer = run_writer{text_of(w.getHost()), text_of(w.getBoot()), w.getPid(), w.getStarted(),
                            text_of(w.getClient())};
    }
    if (r.getDropped())
      x.dropped_us = r.getDroppedUs();
    x.executions = get_executions(r.getExecutions());
    return x;
  });
}

} // namespace soma::detail::packed
