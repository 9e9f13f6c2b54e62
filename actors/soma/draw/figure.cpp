#include "soma/draw/figure.hpp"
#include "soma/draw/framing.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>

namespace soma::draw {

figure::figure(int width, int height, std::string title)
  : width_(width), height_(height), title_(std::move(title)) {
  if (width <= 0 || height <= 0)
    throw std::invalid_argument("a figure needs a positive size; asked for "
                                + std::to_string(width) + "x" + std::to_string(height));
}

void figure::add(mark m) { marks_.push_back(std::move(m)); }

void check_size(const framing& frame) {
  auto in = [](int v, int lo, int hi) { return v == 0 || (v >= lo && v <= hi); };
  if (!in(frame.width, least_width, most_width) || !in(frame.height, least_height, most_height))
    throw std::invalid_argument("a figure of " + std::to_string(frame.width) + "x"
                                + std::to_string(frame.height) + " pixels cannot be drawn: the "
                                "width must be " + std::to_string(least_width) + " to "
                                + std::to_string(most_width) + " and the height "
                                + std::to_string(least_height) + " to "
                                + std::to_string(most_height));
}

void figure::save(const std::string& path) const {
  auto dot = path.find_last_of('.');
  auto slash = path.find_last_of('/');
  std::string ext;
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
    ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext != "svg" && ext != "png")
    throw std::invalid_argument("cannot save a figure as '" + path
                                + "': the name must end in .svg or .png, which says the format");
  auto bytes = ext == "svg" ? svg() : png();
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out)
    throw std::runtime_error("cannot write the figure to '" + path
                             + "': is its directory there and writable?");
}

} // namespace soma::draw
