#include "soma/detail/value_ranges.hpp"

#include "soma/detail/capnp.hpp"

namespace soma::detail {

void put_ranges(capnp::List<schema::ValueRange>::Builder out, const std::vector<value_range>& xs) {
  for (unsigned i = 0; i < xs.size(); ++i) {
    auto v = out[i];
    v.setKey(as_text(xs[i].key));
    v.setLast(xs[i].last);
    v.setLastForward(xs[i].last_forward);
    v.setMin(xs[i].min);
    v.setMax(xs[i].max);
  }
}

std::vector<value_range> get_ranges(capnp::List<schema::ValueRange>::Reader in) {
  std::vector<value_range> out;
  out.reserve(in.size());
  for (auto v : in)
    out.push_back({text_of(v.getKey()), v.getLast(), v.getLastForward(), v.getMin(), v.getMax()});
  return out;
}

} // namespace soma::detail
