#include "soma/detail/executions.hpp"

#include "soma/detail/capnp.hpp"

namespace soma::detail {

void put_executions(capnp::List<schema::Execution>::Builder out, const std::vector<execution>& xs) {
  for (unsigned i = 0; i < xs.size(); ++i) {
    auto e = out[i];
    e.setForward(xs[i].forward);
    e.setBeganUs(xs[i].began_us);
    e.setHost(as_text(xs[i].host));
    e.setPid(xs[i].pid);
    e.setRecorder(xs[i].recorder);
  }
}

std::vector<execution> get_executions(capnp::List<schema::Execution>::Reader in) {
  std::vector<execution> out;
  out.reserve(in.size());
  for (auto e : in)
    out.push_back({e.getForward(), e.getBeganUs(), text_of(e.getHost()), e.getPid(), e.getRecorder()});
  return out;
}

} // namespace soma::detail
