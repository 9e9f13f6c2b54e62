#include "soma/wire/record_write.hpp"

#include "soma/detail/capnp.hpp"
#include "soma/detail/fact_lists.hpp"
#include "soma/detail/named_values.hpp"
#include "soma/error.hpp"
#include "soma/record.hpp"
#include "soma/schema/remote.capnp.h"

namespace soma::detail {

namespace {

std::string flat(capnp::MessageBuilder& message) {
  return detail::to_bytes(message);
}

// Reads root T of `bytes`, handing it to `f`; the error names `what`.
template <class T, class F>
auto read(std::string_view bytes, const char* what, F&& f) {
  try {
    return read_capnp<T>(bytes, std::forward<F>(f));
  } catch (const undecodable& e) {
    throw undecodable(std::string{what} + " did not decode: " + e.what());
  }
}

} // namespace

std::string encode_record_write(const record_write& w) {
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::RecordWrite>();
  root.setRecorder(w.recorder);
  root.setRun(w.options.run);
  auto names = root.initSummarising(static_cast<unsigned>(w.options.summarising.size()));
  for (unsigned i = 0; i < names.size(); ++i)
    names.set(i, w.options.summarising[i]);
  root.setOverwrite(w.options.overwrite);
  root.setBatch(static_cast<std::uint32_t>(w.options.batch));
  root.setClosing(w.closing);
  if (!w.options.params.empty())
    put_values(root.initParams(static_cast<unsigned>(w.options.params.size())), w.options.params);
  auto tags = root.initTags(static_cast<unsigned>(w.options.tags.size()));
  for (unsigned i = 0; i < tags.size(); ++i)
    tags.set(i, as_text(w.options.tags[i]));
  root.setClient(as_text(w.options.client));
  auto fs = root.initForwards(static_cast<unsigned>(w.forwards.size()));
  for (unsigned i = 0; i < fs.size(); ++i) {
    auto& f = w.forwards[i];
    fs[i].setId(f.id);
    fs[i].setHasNumber(f.number.has_value());
    fs[i].setNumber(f.number.value_or(0));
    fs[i].setState(f.state == outcome::ok      ? schema::State::OK
                   : f.state == outcome::broke ? schema::State::BROKE
                                               : schema::State::OPEN);
    fs[i].setTookUs(f.took_us);
    fs[i].setWhen(seconds_of(f.when_us));
    fs[i].setWhenSubUs(sub_second_us(f.when_us));
    write_facts(fs[i].initFacts(static_cast<unsigned>(f.facts.size())), f.facts);
  }
  return flat(message);
}

record_write decode_record_write(std::string_view bytes) {
  return read<schema::RecordWrite>(bytes, "a recorder's batch", [](schema::RecordWrite::Reader r) {
    record_write w;
    w.recorder = r.getRecorder();
    w.options.run = r.getRun();
    for (auto n : r.getSummarising())
      w.options.summarising.emplace_back(n);
    w.options.overwrite = r.getOverwrite();
    w.options.batch = r.getBatch();
    w.closing = r.getClosing();
    w.options.params = get_values(r.getParams());
    for (auto t : r.getTags())
      w.options.tags.push_back(text_of(t));
    w.options.client = text_of(r.getClient());
    for (auto f : r.getForwards()) {
      held_forward h;
      h.id = f.getId();
      if (f.getHasNumber())
        h.number = f.getNumber();
      h.state = f.getState() == schema::State::OK      ? outcome::ok
                : f.getState() == schema::State::BROKE ? outcome::broke
                                                       : outcome::open;
      h.took_us = f.getTookUs();
      h.when_us = when_us_of(f.getWhen(), f.getWhenSubUs());
      h.facts = read_facts(f.getFacts());
      w.forwards.push_back(std::move(h));
    }
    return w;
  });
}

std::string encode_record_numbers(const record_numbers& n) {
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::RecordNumbers>();
  auto ids = root.initIds(static_cast<unsigned>(n.numbered.size()));
  auto numbers = root.initNumbers(static_cast<unsigned>(n.numbered.size()));
  for (unsigned i = 0; i < ids.size(); ++i) {
    ids.set(i, n.numbered[i].first);
    numbers.set(i, n.numbered[i].second);
  }
  root.setHasError(static_cast<bool>(n.error));
  root.setError(n.error ? describe(n.error) : std::string{});
  return flat(message);
}

record_numbers decode_record_numbers(std::string_view bytes) {
  return read<schema::RecordNumbers>(bytes, "a served store's answer", [](schema::RecordNumbers::Reader r) {
    record_numbers n;
    auto ids = r.getIds();
    auto numbers = r.getNumbers();
    for (unsigned i = 0; i < ids.size() && i < numbers.size(); ++i)
      n.numbered.emplace_back(ids[i], numbers[i]);
    if (r.getHasError())
      n.error = make_error(error_code::store_failed, text_of(r.getError()));
    return n;
  });
}

} // namespace soma::detail
