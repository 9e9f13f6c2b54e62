#include "soma/error.hpp"

#include <caf/deep_to_string.hpp>
#include <caf/make_message.hpp>
#include <caf/message.hpp>


namespace soma {

caf::error make_error(error_code code, std::string node, std::string message) {
  return caf::error{static_cast<std::uint8_t>(code), error_category,
                    caf::make_message(std::move(node), std::move(message))};
}

caf::error make_error(error_code code, std::string message) {
  return make_error(code, std::string{}, std::move(message));
}

namespace {

bool is_ours(const caf::error& e) {
  return e && e.category() == error_category && e.context().match_elements<std::string, std::string>();
}

} // namespace

std::string error_node(const caf::error& e) {
  return is_ours(e) ? e.context().get_as<std::string>(0) : std::string{};
}

std::string describe(const caf::error& e) {
  if (!e)
    return "no error";
  if (!is_ours(e))
    return caf::to_string(e);
  auto& node = e.context().get_as<std::string>(0);
  auto& text = e.context().get_as<std::string>(1);
  if (static_cast<error_code>(e.code()) == error_code::node_failed)
    return describe_failure(node, text);
  return text;
}

std::string describe_failure(const std::string& node, const std::string& error) {
  if (node.empty())
    return "forward failed: " + error;
  return "node '" + node + "' failed: " + error;
}

} // namespace soma
