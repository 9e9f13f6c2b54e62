#pragma once

/// @file
/// SOMA_NODE_LIBRARY: the nodes a shared library serves to soma-node workers.
///
/// A node that runs on a worker (`.at("w1")`) is defined in a node library:
/// a shared object built with `soma_add_node_library()` (docs/remote.md)
/// whose one source file says which nodes it defines:
///
/// ```
/// // seed_nodes.cpp
/// #include <soma/node_library.hpp>
/// #include "seed_nodes.hpp"
/// SOMA_NODE_LIBRARY(Tokenize, Embed, Score)
/// ```
///
/// The client links the library and uses the nodes in its graph; a worker
/// gets the same library by `soma-node --nodes libseed_nodes.so`
/// (mode::project) or by the client shipping it (mode::network). Either way
/// the node's definition is the SHA-256 of the library file: a worker runs a
/// node only when both sides have the very same library.
///
/// A node served this way is default-constructed on the worker (once per
/// session and graph name, so it may keep state across forwards like a node
/// actor), and its In and Out need a soma::codec: they cross the wire.

#include <concepts>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "soma/codec.hpp"
#include "soma/context.hpp"
#include "soma/node.hpp"

namespace soma::detail {

/// A value crossing the wire did not decode or encode: the slice is refused
/// as bad, which is not the node failing.
struct value_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One node of a library, its types erased to bytes.
class remote_node {
public:
  virtual ~remote_node() = default;

  /// Decodes `input`, runs the node, encodes its output. Throws value_error
  /// when a value does not cross, anything else when the node throws.
  virtual std::string run(std::string_view input, context& ctx) = 0;
};

template <class N>
class remote_node_of final : public remote_node {
public:
  std::string run(std::string_view input, context& ctx) override {
    auto in = take(input);
    auto out = node_.forward(in, ctx);
    try {
      return encode(out);
    } catch (const std::exception& e) {
      throw value_error(std::string{"its output could not be encoded: "} + e.what());
    }
  }

private:
  static typename N::In take(std::string_view input) {
    try {
      return decode<typename N::In>(input);
    } catch (const std::exception& e) {
      throw value_error(std::string{"its input did not decode: "} + e.what());
    }
  }

  N node_;
};

/// One node a library serves: its type's name and how to make one.
struct library_entry {
  std::string type;
  std::unique_ptr<remote_node> (*make)();
};

/// What SOMA_NODE_LIBRARY exports.
using library_catalog_fn = const std::vector<library_entry>& (*)();

/// The exported symbol's name.
inline constexpr const char* library_symbol = "soma_node_library_v1";

template <class N>
library_entry entry_of() {
  static_assert(node_type<N>, "SOMA_NODE_LIBRARY lists soma nodes only");
  static_assert(std::default_initializable<N>,
                "SOMA_NODE_LIBRARY: a node served to workers is default-constructed there; "
                "give it a default constructor");
  static_assert(encodable<typename N::In> && encodable<typename N::Out>,
                "SOMA_NODE_LIBRARY: a node served to workers sends its In and Out over the "
                "wire; both need a soma::codec (docs/codec.md)");
  return {type_name(typeid(N)), [] { return std::unique_ptr<remote_node>(new remote_node_of<N>); }};
}

template <class... Ns>
std::vector<library_entry> entries_of() {
  return {entry_of<Ns>()...};
}

} // namespace soma::detail

/// Declares the nodes this shared library serves (once per library, in one
/// source file, at namespace scope). The list lives in the exported function
/// itself, never in a template: a template's static would be one object for
/// the whole process (GCC's "unique" symbols), and two builds of a library
/// loaded side by side would then share one list.
#define SOMA_NODE_LIBRARY(...)                                                                     \
  extern "C" __attribute__((visibility("default"))) const std::vector<soma::detail::library_entry>& \
  soma_node_library_v1() {                                                                         \
    static const std::vector<soma::detail::library_entry> entries =                                \
      soma::detail::entries_of<__VA_ARGS__>();                                                     \
    return entries;                                                                                \
  }
