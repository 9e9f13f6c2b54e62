#include "soma/node.hpp"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace soma::detail {

std::string type_name(const std::type_info& t) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name{
    abi::__cxa_demangle(t.name(), nullptr, nullptr, &status), std::free};
  return status == 0 && name ? std::string{name.get()} : std::string{t.name()};
}

} // namespace soma::detail
