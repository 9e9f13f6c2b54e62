#include "soma/draw/tally.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace soma::draw {

namespace {

// Forwards that overlap are told interleaved; the numbers of the last few
// ids are remembered so a late fact of an earlier forward still finds its
// number. (Older than this, a fact counts toward the forward that began last.)
constexpr std::size_t remembered = 64;

std::int64_t micros(const scalar& x) {
  return x.integer_or(0);
}

} // namespace

tally::tally(std::string_view name, std::size_t bound) : name_(name), bound_(bound) {
  if (bound < 2)
    throw std::invalid_argument("a tally keeps at least 2 values; a bound of "
                                + std::to_string(bound) + " is too small");
  auto dot = name.find('.');
  fact_ = name.substr(0, dot);
  field_ = dot == std::string_view::npos ? "value" : name.substr(dot + 1);
}

void tally::add(std::uint64_t forward, const fact& f) {
  if (!seen_forward_ || forward != current_id_) {
    auto it = std::find_if(recent_.begin(), recent_.end(),
                           [&](auto& p) { return p.first == forward; });
    if (it != recent_.end()) {
      count(it->second, f);
      return;
    }
    // A new forward. Facts told before any forward joined forward 0 already.
    current_n_ = seen_forward_ ? begun_ : 0;
    begun_ = current_n_ + 1;
    current_id_ = forward;
    seen_forward_ = true;
    if (recent_.size() == remembered)
      recent_.erase(recent_.begin());
    recent_.emplace_back(forward, current_n_);
  }
  count(current_n_, f);
}

void tally::add(const fact& f) {
  if (begun_ == 0)
    begun_ = 1; // told before any forward: it joins the first one, as a recorder does
  count(current_n_, f);
}

void tally::count(std::uint64_t n, const fact& f) {
  ++facts_;
  const auto& name = f.name;
  if (name == "ran" || name == "failed") {
    auto node = f["node"].text();
    auto it = std::find_if(nodes_.begin(), nodes_.end(),
                           [&](const node_time& t) { return t.node == node; });
    if (it == nodes_.end())
      it = nodes_.insert(nodes_.end(), node_time{std::string{node}});
    (name == "ran" ? it->ran : it->failed) += 1;
    it->took_us += micros(f["took_us"]);
  } else if (name == "finished") {
    ++finished_;
  } else if (name == "broke") {
    ++broke_;
  } else if (name == fact_) {
    auto x = read_number(f[field_]);
    if (!x) {
      ++unreadable_;
      return;
    }
    auto v = *x;
    last_ = v;
    keep(n, v);
  }
}

void tally::keep(std::uint64_t n, double v) {
  if (!values_.empty() && values_.back().first == n) {
    values_.back().second = v; // the last told counts
    return;
  }
  if (n % every_ != 0)
    return;
  if (values_.size() == bound_) {
    every_ *= 2;
    std::erase_if(values_, [&](auto& p) { return p.first % every_ != 0; });
    if (n % every_ != 0)
      return;
  }
  values_.emplace_back(n, v);
}

} // namespace soma::draw
