#pragma once

/// @file
/// The page of `soma serve`, its script and its styles, compiled in from
/// web/assets/ (web/embed.cmake): nothing is fetched from elsewhere.

#include <string_view>

namespace soma::web::assets {

extern const std::string_view page_html;
extern const std::string_view soma_js;
extern const std::string_view soma_css;

} // namespace soma::web::assets
