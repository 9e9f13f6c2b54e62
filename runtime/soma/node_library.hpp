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
/// A node served this way is made on the worker once per session, graph name
/// and settings, so it may keep state across forwards like a node actor.
/// Its settings travel: a node type with a soma::codec of its own (its fields
/// through soma::fields_codec, docs/codec.md) is sent with them encoded and
/// made from them over there, so `Scale{3}.at("w1")` multiplies by 3 there.
/// One without a codec is default-constructed there; a graph refuses to send
/// one that has fields of its own (they would be lost silently). Its In and
/// Out need a soma::codec: they cross the wire.

#include <concepts>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "soma/codec.hpp"
#include "soma/context.hpp"
#include "soma/export.hpp"
#include "soma/node.hpp"
#include "soma/values.hpp"

SOMA_API_BEGIN

namespace soma {
class trial; // soma/trials/trial.hpp
} // namespace soma

namespace soma::detail {

/// A value crossing the wire did not decode or encode: the slice is refused
/// as bad, which is not the node failing.
struct value_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A value between the nodes of a slice on a worker, its type erased: it
/// stays a C++ value from one node to the next.
using boxed = std::shared_ptr<void>;

/// Whether node type `N` has fields of its own, beyond what soma::node keeps
/// (its name and configuration): settings that would be lost if it were
/// default-constructed elsewhere. soma::node ends with a full member, so a
/// field of `N` can only add to its size.
template <class N>
inline constexpr bool has_fields =
  sizeof(N) > sizeof(soma::node<typename N::self_type, typename N::In, typename N::Out>);

/// One node of a library, its types erased.
class remote_node {
public:
  virtual ~remote_node() = default;

  /// The node's In and Out.
  [[nodiscard]] virtual const std::type_info& in_type() const noexcept = 0;
  [[nodiscard]] virtual const std::type_info& out_type() const noexcept = 0;

  /// Decodes its input; throws value_error when the bytes are not an In.
  [[nodiscard]] virtual boxed decode_in(std::string_view input) const = 0;

  /// Runs the node on `in` (an In, or the Out of a node before it of the
  /// same type). Throws what the node throws.
  [[nodiscard]] virtual boxed run(const boxed& in, context& ctx) = 0;

  /// Encodes its output; throws value_error when it cannot be encoded.
  [[nodiscard]] virtual std::string encode_out(const boxed& out) const = 0;
};

template <class N>
class remote_node_of final : public remote_node {
public:
  remote_node_of() = default;
  explicit remote_node_of(N node) : node_(std::move(node)) {}

  const std::type_info& in_type() const noexcept override { return typeid(typename N::In); }
  const std::type_info& out_type() const noexcept override { return typeid(typename N::Out); }

  boxed decode_in(std::string_view input) const override {
    try {
      return std::make_shared<typename N::In>(decode<typename N::In>(input));
    } catch (const std::exception& e) {
      throw value_error(std::string{"its input did not decode: "} + e.what());
    }
  }

  boxed run(const boxed& in, context& ctx) override {
    return std::make_shared<typename N::Out>(
      node_.forward(*static_cast<const typename N::In*>(in.get()), ctx));
  }

  std::string encode_out(const boxed& out) const override {
    try {
      return encode(*static_cast<const typename N::Out*>(out.get()));
    } catch (const std::exception& e) {
      throw value_error(std::string{"its output could not be encoded: "} + e.what());
    }
  }

private:
  N node_;
};

/// One node a library serves: its type's name and how to make one from its
/// encoded fields (empty for a node type without a codec). `make` throws
/// value_error when the fields do not decode.
struct library_entry {
  std::string type;
  std::unique_ptr<remote_node> (*make)(std::string_view state);
};

/// What SOMA_NODE_LIBRARY exports.
using library_catalog_fn = const std::vector<library_entry>& (*)();

/// The exported symbol's name.
inline constexpr const char* library_symbol = "soma_node_library_v2";

/// What a library built by an older soma exports instead.
inline constexpr const char* old_library_symbol = "soma_node_library_v1";

/// One trial function a library gives `soma-node --claim` (SOMA_TRIAL_FUNCTIONS).
struct trial_function_entry {
  std::string name;
  values (*run)(trial&);
};

/// What SOMA_TRIAL_FUNCTIONS exports, and the symbol's name.
using trial_catalog_fn = const std::vector<trial_function_entry>& (*)();
inline constexpr const char* trial_symbol = "soma_trial_functions_v1";

template <class N>
library_entry entry_of() {
  static_assert(node_type<N>, "SOMA_NODE_LIBRARY lists soma nodes only");
  static_assert(encodable<N> || std::default_initializable<N>,
                "SOMA_NODE_LIBRARY: a node served to workers is made there from its codec, or "
                "default-constructed when it has none; give it a soma::codec or a default "
                "constructor");
  static_assert(encodable<typename N::In> && encodable<typename N::Out>,
                "SOMA_NODE_LIBRARY: a node served to workers sends its In and Out over the "
                "wire; both need a soma::codec (docs/codec.md)");
  return {type_name(typeid(N)), [](std::string_view state) -> std::unique_ptr<remote_node> {
            if constexpr (encodable<N>) {
              try {
                return std::make_unique<remote_node_of<N>>(decode<N>(state));
              } catch (const std::exception& e) {
                throw value_error(std::string{"its fields did not decode: "} + e.what());
              }
            } else {
              return std::make_unique<remote_node_of<N>>();
            }
          }};
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
  soma_node_library_v2() {                                                                         \
    static const std::vector<soma::detail::library_entry> entries =                                \
      soma::detail::entries_of<__VA_ARGS__>();                                                     \
    return entries;                                                                                \
  }

/// Declares the trial functions this shared library gives `soma-node --claim
/// STUDY` (docs/trials.md), by name, once per library at namespace scope:
///
/// ```
/// soma::values sweep(soma::trial& t);
/// SOMA_TRIAL_FUNCTIONS({"sweep", &sweep})
/// ```
///
/// A library may have these, nodes (SOMA_NODE_LIBRARY), or both.
#define SOMA_TRIAL_FUNCTIONS(...)                                                                  \
  extern "C" __attribute__((visibility("default")))                                               \
  const std::vector<soma::detail::trial_function_entry>& soma_trial_functions_v1() {               \
    static const std::vector<soma::detail::trial_function_entry> entries{__VA_ARGS__};             \
    return entries;                                                                                \
  }

SOMA_API_END
