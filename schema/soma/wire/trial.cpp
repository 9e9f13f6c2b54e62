#include "soma/wire/trial.hpp"

#include "soma/detail/capnp.hpp"
#include "soma/error.hpp"
#include "soma/detail/named_values.hpp"
#include "soma/schema/remote.capnp.h"
#include "soma/schema/soma.capnp.h"

namespace soma::wire {

namespace {

using detail::as_text;
using detail::get_values;
using detail::put_values;
using detail::text_of;

schema::TrialState state_of(trial_state s) {
  switch (s) {
    case trial_state::waiting: return schema::TrialState::WAITING;
    case trial_state::claimed: return schema::TrialState::CLAIMED;
    case trial_state::done: return schema::TrialState::DONE;
    case trial_state::broke: return schema::TrialState::BROKE;
  }
  return schema::TrialState::WAITING;
}

trial_state state_of(schema::TrialState s) {
  switch (s) {
    case schema::TrialState::WAITING: return trial_state::waiting;
    case schema::TrialState::CLAIMED: return trial_state::claimed;
    case schema::TrialState::DONE: return trial_state::done;
    case schema::TrialState::BROKE: return trial_state::broke;
  }
  throw detail::undecodable("a trial state this soma does not know");
}

void put_trial(schema::Trial::Builder x, const trial_row& t) {
  x.setNumber(t.number);
  put_values(x.initParams(static_cast<unsigned>(t.params.size())), t.params);
  x.setState(state_of(t.state));
  x.setAttempt(t.attempt);
  x.setClaimant(as_text(t.claimant));
  x.setClaimedUs(t.claimed_us);
  x.setRun(as_text(t.run));
  x.setEndedUs(t.ended_us);
  put_values(x.initResult(static_cast<unsigned>(t.result.size())), t.result);
  x.setError(as_text(t.error));
  auto gone = x.initAbandoned(static_cast<unsigned>(t.abandoned.size()));
  for (unsigned i = 0; i < gone.size(); ++i) {
    auto& a = t.abandoned[i];
    auto y = gone[i];
    y.setAttempt(a.attempt);
    y.setClaimant(as_text(a.claimant));
    y.setClaimedUs(a.claimed_us);
    y.setRun(as_text(a.run));
    y.setEndedUs(a.ended_us);
    y.setWhy(as_text(a.why));
  }
  x.setAddedUs(t.added_us);
}

trial_row get_trial(schema::Trial::Reader x) {
  trial_row t;
  t.number = x.getNumber();
  t.params = get_values(x.getParams());
  t.state = state_of(x.getState());
  t.attempt = x.getAttempt();
  t.claimant = text_of(x.getClaimant());
  t.claimed_us = x.getClaimedUs();
  t.run = text_of(x.getRun());
  t.ended_us = x.getEndedUs();
  t.result = get_values(x.getResult());
  t.error = text_of(x.getError());
  for (auto y : x.getAbandoned())
    t.abandoned.push_back({y.getAttempt(), text_of(y.getClaimant()), y.getClaimedUs(),
                           text_of(y.getRun()), y.getEndedUs(), text_of(y.getWhy())});
  t.added_us = x.getAddedUs();
  return t;
}

} // namespace

std::string encode_trial(const trial_row& t) {
  capnp::MallocMessageBuilder message;
  put_trial(message.initRoot<schema::Trial>(), t);
  return detail::to_bytes(message);
}

trial_row decode_trial(std::string_view bytes) {
  return detail::read_capnp<schema::Trial>(bytes, get_trial);
}

std::string encode_study(const study_row& s) {
  capnp::MallocMessageBuilder message;
  auto x = message.initRoot<schema::Study>();
  x.setName(as_text(s.name));
  x.setCreatedUs(s.created_us);
  x.setTrials(s.trials);
  x.setFunction(as_text(s.function));
  return detail::to_bytes(message);
}

study_row decode_study(std::string_view bytes) {
  return detail::read_capnp<schema::Study>(bytes, [](schema::Study::Reader x) {
    return study_row{text_of(x.getName()), x.getCreatedUs(), x.getTrials(),
                     text_of(x.getFunction())};
  });
}

std::string encode_trials_add(const trials_add& a) {
  capnp::MallocMessageBuilder message;
  auto x = message.initRoot<schema::TrialsAdd>();
  x.setStudy(as_text(a.study));
  x.setFunction(as_text(a.function));
  auto list = x.initTrials(static_cast<unsigned>(a.trials.size()));
  for (unsigned i = 0; i < list.size(); ++i)
    put_values(list[i].initParams(static_cast<unsigned>(a.trials[i].size())), a.trials[i]);
  return detail::to_bytes(message);
}

trials_add decode_trials_add(std::string_view bytes) {
  return detail::read_capnp<schema::TrialsAdd>(bytes, [](schema::TrialsAdd::Reader x) {
    trials_add a{text_of(x.getStudy()), text_of(x.getFunction()), {}};
    for (auto t : x.getTrials())
      a.trials.push_back(get_values(t.getParams()));
    return a;
  });
}

std::string encode_trial_numbers(const std::vector<std::uint64_t>& numbers) {
  capnp::MallocMessageBuilder message;
  auto list = message.initRoot<schema::TrialNumbers>().initNumbers(static_cast<unsigned>(numbers.size()));
  for (unsigned i = 0; i < list.size(); ++i)
    list.set(i, numbers[i]);
  return detail::to_bytes(message);
}

std::vector<std::uint64_t> decode_trial_numbers(std::string_view bytes) {
  return detail::read_capnp<schema::TrialNumbers>(bytes, [](schema::TrialNumbers::Reader x) {
    std::vector<std::uint64_t> out;
    for (auto n : x.getNumbers())
      out.push_back(n);
    return out;
  });
}

std::string encode_claim_ask(const claim_ask& a) {
  capnp::MallocMessageBuilder message;
  auto x = message.initRoot<schema::ClaimAsk>();
  x.setStudy(as_text(a.study));
  x.setClaimant(as_text(a.claimant));
  x.setWaitMs(a.wait_ms);
  return detail::to_bytes(message);
}

claim_ask decode_claim_ask(std::string_view bytes) {
  return detail::read_capnp<schema::ClaimAsk>(bytes, [](schema::ClaimAsk::Reader x) {
    return claim_ask{text_of(x.getStudy()), text_of(x.getClaimant()), x.getWaitMs()};
  });
}

std::string encode_claim_answer(const std::optional<trial_row>& t) {
  capnp::MallocMessageBuilder message;
  auto x = message.initRoot<schema::ClaimAnswer>();
  x.setClaimed(t.has_value());
  if (t)
    put_trial(x.initTrial(), *t);
  return detail::to_bytes(message);
}

std::optional<trial_row> decode_claim_answer(std::string_view bytes) {
  return detail::read_capnp<schema::ClaimAnswer>(
    bytes, [](schema::ClaimAnswer::Reader x) -> std::optional<trial_row> {
      if (!x.getClaimed())
        return std::nullopt;
      return get_trial(x.getTrial());
    });
}

std::string encode_trial_end(const trial_end& e) {
  capnp::MallocMessageBuilder message;
  auto x = message.initRoot<schema::TrialEnd>();
  x.setStudy(as_text(e.study));
  x.setNumber(e.number);
  x.setAttempt(e.attempt);
  x.setClaimant(as_text(e.claimant));
  x.setState(state_of(e.state));
  put_values(x.initResult(static_cast<unsigned>(e.result.size())), e.result);
  x.setError(as_text(e.error));
  return detail::to_bytes(message);
}

trial_end decode_trial_end(std::string_view bytes) {
  return detail::read_capnp<schema::TrialEnd>(bytes, [](schema::TrialEnd::Reader x) {
    return trial_end{text_of(x.getStudy()), x.getNumber(), x.getAttempt(), text_of(x.getClaimant()),
                     state_of(x.getState()), get_values(x.getResult()), text_of(x.getError())};
  });
}

namespace {

void put_ended(schema::TrialEnded::Builder x, const caf::expected<void>& ended) {
  x.setOk(static_cast<bool>(ended));
  if (!ended)
    x.setWhy(as_text(describe(ended.error())));
}

[[nodiscard]] caf::expected<void> get_ended(schema::TrialEnded::Reader x) {
  if (x.getOk())
    return {};
  return make_error(error_code::refused, text_of(x.getWhy()));
}

} // namespace

std::string encode_trial_ended(const caf::expected<void>& ended) {
  capnp::MallocMessageBuilder message;
  put_ended(message.initRoot<schema::TrialEnded>(), ended);
  return detail::to_bytes(message);
}

caf::expected<void> decode_trial_ended(std::string_view bytes) {
  return detail::read_capnp<schema::TrialEnded>(bytes, get_ended);
}

std::string encode_trial_ended_claimed(const caf::expected<void>& ended,
                                      const std::optional<trial_row>& next) {
  capnp::MallocMessageBuilder message;
  auto x = message.initRoot<schema::TrialEndedClaimed>();
  put_ended(x.initEnded(), ended);
  auto n = x.initNext();
  n.setClaimed(next.has_value());
  if (next)
    put_trial(n.initTrial(), *next);
  return detail::to_bytes(message);
}

std::pair<caf::expected<void>, std::optional<trial_row>>
decode_trial_ended_claimed(std::string_view bytes) {
  return detail::read_capnp<schema::TrialEndedClaimed>(bytes, [](schema::TrialEndedClaimed::Reader x) {
    std::pair<caf::expected<void>, std::optional<trial_row>> out{get_ended(x.getEnded()), {}};
    if (x.getNext().getClaimed())
      out.second = get_trial(x.getNext().getTrial());
    return out;
  });
}

std::string encode_reclaim_ask(const reclaim_ask& a) {
  capnp::MallocMessageBuilder message;
  auto x = message.initRoot<schema::ReclaimAsk>();
  x.setStudy(as_text(a.study));
  x.setQuietOverS(a.quiet_over_s);
  return detail::to_bytes(message);
}

reclaim_ask decode_reclaim_ask(std::string_view bytes) {
  return detail::read_capnp<schema::ReclaimAsk>(bytes, [](schema::ReclaimAsk::Reader x) {
    return reclaim_ask{text_of(x.getStudy()), x.getQuietOverS()};
  });
}

} // namespace soma::wire
