#include "soma/detail/named_values.hpp"

#include "soma/detail/capnp.hpp"

namespace soma::detail {

void put_values(capnp::List<schema::Named>::Builder out, const values& xs) {
  unsigned i = 0;
  for (auto& [name, v] : xs) {
    auto n = out[i++];
    n.setName(as_text(name));
    auto u = n.initValue();
    switch (v.index()) {
      case 0: u.setInt(std::get<std::int64_t>(v)); break;
      case 1: u.setReal(std::get<double>(v)); break;
      case 2: u.setText(as_text(std::get<std::string>(v))); break;
      default: u.setFlag(std::get<bool>(v)); break;
    }
  }
}

values get_values(capnp::List<schema::Named>::Reader in) {
  values out;
  for (auto n : in) {
    auto u = n.getValue();
    value v;
    switch (u.which()) {
      case schema::Named::Value::INT: v = u.getInt(); break;
      case schema::Named::Value::REAL: v = u.getReal(); break;
      case schema::Named::Value::TEXT: v = text_of(u.getText()); break;
      case schema::Named::Value::FLAG: v = u.getFlag(); break;
      default: throw undecodable("a named value of a kind this soma does not know");
    }
    out.set(text_of(n.getName()), std::move(v));
  }
  return out;
}

} // namespace soma::detail
