#pragma once

/// @file
/// soma::chain and `>>`: nodes composed into a typed pipeline.

#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "soma/export.hpp"
#include "soma/node.hpp"

SOMA_API_BEGIN

namespace soma {

namespace detail {

/// Checks that `Left`'s output is `Right`'s input. When it fails, the
/// compiler's note "required from ... link_check<Left, Right>" names the two
/// nodes that disagree.
template <class Left, class Right>
struct link_check {
  static_assert(std::is_same_v<typename Left::Out, typename Right::In>,
                "soma: these two nodes cannot be joined with >>: the left node's Out "
                "is not the right node's In (the two nodes are Left and Right in "
                "soma::detail::link_check<Left, Right>)");
  static constexpr bool value = true;
};

template <class... Ts>
struct last_of;

template <class T>
struct last_of<T> {
  using type = T;
};

template <class T, class... Ts>
struct last_of<T, Ts...> : last_of<Ts...> {};

template <class T, class... Ts>
struct first_of {
  using type = T;
};

} // namespace detail

/// Nodes composed in order, each one's Out the next one's In. Built by `>>`,
/// consumed by soma::graph::somatize. Owns its nodes; move-only.
template <class... Nodes>
class chain {
public:
  static_assert(sizeof...(Nodes) > 0);

  using first_node = typename detail::first_of<Nodes...>::type;
  using last_node = typename detail::last_of<Nodes...>::type;
  using In = typename first_node::In;
  using Out = typename last_node::Out;

  static constexpr std::size_t size = sizeof...(Nodes);

  explicit chain(std::unique_ptr<Nodes>... nodes) : nodes_(std::move(nodes)...) {}

  chain(chain&&) noexcept = default;
  chain& operator=(chain&&) noexcept = default;

  /// The nodes, in order; moved out when a graph is made.
  std::tuple<std::unique_ptr<Nodes>...>& nodes() noexcept { return nodes_; }

  /// Appends `next`; the compiler checks the link.
  template <class Next>
  chain<Nodes..., Next> then(std::unique_ptr<Next> next) && {
    static_assert(detail::link_check<last_node, Next>::value);
    return std::apply(
      [&](auto&... ns) { return chain<Nodes..., Next>(std::move(ns)..., std::move(next)); },
      nodes_);
  }

private:
  std::tuple<std::unique_ptr<Nodes>...> nodes_;
};

template <class T>
struct is_chain : std::false_type {};

template <class... Ns>
struct is_chain<chain<Ns...>> : std::true_type {};

namespace detail {

template <class N>
auto own(N&& n) {
  using T = std::remove_cvref_t<N>;
  return std::make_unique<T>(std::forward<N>(n));
}

template <class N>
  requires node_type<N>
chain<std::remove_cvref_t<N>> as_chain(N&& n) {
  return chain<std::remove_cvref_t<N>>(own(std::forward<N>(n)));
}

template <class... Ns>
chain<Ns...> as_chain(chain<Ns...>&& c) {
  return std::move(c);
}

} // namespace detail

/// `a >> b`: a chain of two nodes. Fails to compile, naming both, when
/// `a`'s Out is not `b`'s In. A node given as an lvalue is copied.
template <class L, class R>
  requires node_type<L> && node_type<R>
auto operator>>(L&& left, R&& right) {
  return detail::as_chain(std::forward<L>(left)).then(detail::own(std::forward<R>(right)));
}

/// `chain >> c`: one more node at the end.
template <class... Ns, class R>
  requires node_type<R>
auto operator>>(chain<Ns...>&& left, R&& right) {
  return std::move(left).then(detail::own(std::forward<R>(right)));
}

/// `a >> chain`: one node in front of a chain.
template <class L, class... Ns>
  requires node_type<L>
auto operator>>(L&& left, chain<Ns...>&& right) {
  using R0 = typename chain<Ns...>::first_node;
  static_assert(detail::link_check<std::remove_cvref_t<L>, R0>::value);
  return std::apply(
    [&](auto&... ns) {
      return chain<std::remove_cvref_t<L>, Ns...>(detail::own(std::forward<L>(left)),
                                                   std::move(ns)...);
    },
    right.nodes());
}

} // namespace soma

SOMA_API_END
