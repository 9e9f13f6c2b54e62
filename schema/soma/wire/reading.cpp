#include "soma/wire/reading.hpp"

#include "soma/detail/capnp.hpp"
#include "soma/schema/soma.capnp.h"

namespace soma::wire {

std::string encode_reading(const reading& r) {
  capnp::MallocMessageBuilder message;
  auto x = message.initRoot<schema::Reading>();
  x.setId(r.id);
  x.setBusy(r.busy);
  x.setMemory(r.memory);
  x.setCores(r.cores);
  x.setUpUs(r.up_us);
  x.setServed(r.served);
  x.setWhenUs(r.when_us);
  x.setTrials(r.trials);
  x.setClaims(r.claims);
  x.setEveryUs(r.every_us);
  x.setListens(r.listens);
  auto serves = x.initServes(static_cast<unsigned>(r.serves.size()));
  for (unsigned i = 0; i < serves.size(); ++i)
    serves.set(i, r.serves[i]);
  x.setServesStore(r.serves_store);
  return detail::to_bytes(message);
}

reading decode_reading(std::string_view bytes) {
  return detail::read_capnp<schema::Reading>(bytes, [](schema::Reading::Reader x) {
    reading r{x.getId(), x.getBusy(), x.getMemory(), x.getCores(), x.getUpUs(), x.getServed(),
              x.getWhenUs(), x.getTrials(), detail::text_of(x.getClaims()), x.getEveryUs()};
    r.listens = detail::text_of(x.getListens());
    for (auto type : x.getServes())
      r.serves.push_back(detail::text_of(type));
    r.serves_store = detail::text_of(x.getServesStore());
    return r;
  });
}

} // namespace soma::wire
