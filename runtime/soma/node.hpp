#pragma once

/// @file
/// soma::node: what a user writes. One step of a pipeline, typed by what it
/// takes and what it gives.

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "soma/context.hpp"
#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

namespace detail {

/// Marks every node type, whatever its In and Out.
struct node_tag {};

/// The demangled name of a type, e.g. "Tokenize".
std::string type_name(const std::type_info& t);

} // namespace detail

/// How a node is configured in a graph.
struct node_config {
  std::string name; ///< empty until named; a graph names it after its type
  std::optional<std::string> frozen; ///< the frozen version, when frozen
  bool cached = false; ///< keep its outputs in the forward's store
  std::optional<std::string> host; ///< the graph's name of the worker it runs on, if remote
};

/// The base of every node: `Self` is the node's own type, `In` what its
/// `forward` takes and `Out` what it returns.
///
/// ```
/// struct Embed : soma::node<Embed, std::vector<double>, std::vector<double>> {
///   Out forward(const In& counts, soma::context& ctx) override;
/// };
/// auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed"));
/// ```
///
/// `Self` is there so that `.named()` returns your node itself, not a slice
/// of it (C++20 cannot deduce `this`); a graph owns a copy or a moved-from
/// instance of your node and runs it in one actor, so `forward` is never
/// called twice at once on one instance and may keep state without locks.
template <class Self, class In_, class Out_>
class node : public detail::node_tag {
public:
  using In = In_;
  using Out = Out_;
  using self_type = Self;

  static_assert(!std::is_reference_v<In> && !std::is_const_v<In>,
                "soma::node: In is a value type (forward takes it as const In&)");
  static_assert(!std::is_reference_v<Out> && !std::is_const_v<Out>,
                "soma::node: Out is a value type (forward returns it by value)");

  virtual ~node() = default;

  /// Computes the output. May throw: the forward then breaks with `failed`
  /// and `broke` facts naming this node, and the graph stays usable.
  virtual Out forward(const In& input, context& ctx) = 0;

  /// Names the node; the name is what its facts say.
  Self&& named(std::string name) && {
    config_.name = std::move(name);
    return static_cast<Self&&>(*this);
  }

  /// Names the node; the name is what its facts say.
  Self& named(std::string name) & {
    config_.name = std::move(name);
    return static_cast<Self&>(*this);
  }

  /// Freezes the node at `version`: it promises that the same input gives
  /// the same output until the version changes, which is what lets its
  /// results be kept (see cached()).
  Self&& frozen(std::string version = "0") && {
    config_.frozen = std::move(version);
    return static_cast<Self&&>(*this);
  }

  /// Freezes the node at `version`.
  Self& frozen(std::string version = "0") & {
    config_.frozen = std::move(version);
    return static_cast<Self&>(*this);
  }

  /// Keeps the node's outputs in the store a forward is given
  /// (`{.store = kept}`), keyed by the node's type, name and frozen version
  /// and its encoded input; a forward with the same input then recalls the
  /// output instead of running the node. Only for a frozen node: a graph
  /// with a cached node that is not frozen is refused when it is made. In and
  /// Out need a soma::codec.
  Self&& cached() && {
    config_.cached = true;
    return static_cast<Self&&>(*this);
  }

  /// Keeps the node's outputs; see the other overload.
  Self& cached() & {
    config_.cached = true;
    return static_cast<Self&>(*this);
  }

  /// Runs the node on the worker the forward's broker calls `host`
  /// (`{.broker = b}`, docs/remote.md). Consecutive nodes at one host go
  /// there as one slice, one trip; a value crossing hosts is encoded with the
  /// value codec, so In and Out need a soma::codec.
  Self&& at(std::string host) && {
    config_.host = std::move(host);
    return static_cast<Self&&>(*this);
  }

  /// Runs the node on the worker called `host`; see the other overload.
  Self& at(std::string host) & {
    config_.host = std::move(host);
    return static_cast<Self&>(*this);
  }

  /// The node's configuration.
  [[nodiscard]] const node_config& config() const noexcept { return config_; }

  /// The name given, else the name of its type.
  [[nodiscard]] std::string name() const {
    return config_.name.empty() ? detail::type_name(typeid(Self)) : config_.name;
  }

protected:
  node() = default;
  node(const node&) = default;
  node(node&&) = default;
  node& operator=(const node&) = default;
  node& operator=(node&&) = default;

private:
  node_config config_;
};

/// Whether `T` (ignoring references and const) is a soma node.
template <class T>
concept node_type = std::is_base_of_v<detail::node_tag, std::remove_cvref_t<T>>;

} // namespace soma

SOMA_API_END
