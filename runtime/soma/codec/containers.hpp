#pragma once

/// @file
/// soma::codec for containers: std::vector, std::array, std::map,
/// std::unordered_map, std::optional, std::pair, std::tuple, std::variant.
/// Each is encodable exactly when its element types are. Included by
/// soma/codec.hpp; include that.

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

namespace detail {

/// How many elements to reserve before reading a list of `n` from the wire:
/// at most 16 MiB worth, so that a short hostile list of big C++ elements
/// cannot make decode allocate far more than the bytes it was given; past
/// that the container grows as elements actually decode.
template <class T>
std::size_t reserve_hint(std::size_t n) noexcept {
  return std::min(n, (std::size_t{16} << 20) / sizeof(T) + 1);
}

inline void write_numbers(value_writer w, std::span<const std::int64_t> xs) {
  w.write_int64s(xs);
}
inline void write_numbers(value_writer w, std::span<const std::uint64_t> xs) {
  w.write_uint64s(xs);
}
inline void write_numbers(value_writer w, std::span<const double> xs) {
  w.write_float64s(xs);
}

template <class W>
std::vector<W> read_numbers(value_reader r) {
  if constexpr (std::is_same_v<W, std::int64_t>)
    return r.read_int64s();
  else if constexpr (std::is_same_v<W, std::uint64_t>)
    return r.read_uint64s();
  else
    return r.read_float64s();
}

/// Writes `n` elements from `first`: numbers as one list of 8-byte numbers,
/// anything else as a list of values.
template <class T, class It>
void write_elements(value_writer w, It first, std::size_t n) {
  if constexpr (number_element<T>) {
    using W = typename codec<T>::wire;
    if constexpr (std::is_same_v<T, W> && std::contiguous_iterator<It>) {
      write_numbers(w, std::span<const W>{std::to_address(first), n});
    } else {
      std::vector<W> wide;
      wide.reserve(n);
      for (std::size_t i = 0; i < n; ++i, ++first)
        wide.push_back(codec<T>::widen(*first));
      write_numbers(w, std::span<const W>{wide});
    }
  } else {
    auto list = w.write_list(n);
    for (std::size_t i = 0; i < n; ++i, ++first)
      codec<T>::write(list[i], *first);
  }
}

/// Reads what write_elements wrote: sets `size` to the number of elements,
/// then hands each element to `put`.
template <class T, class Put>
void read_elements(value_reader r, std::size_t& size, Put&& put) {
  if constexpr (number_element<T>) {
    auto wide = read_numbers<typename codec<T>::wire>(r);
    size = wide.size();
    for (auto x : wide)
      put(codec<T>::narrow(x));
  } else {
    auto list = r.read_list();
    size = list.size();
    for (std::size_t i = 0; i < list.size(); ++i)
      put(codec<T>::read(list[i]));
  }
}

/// "K,V" / "A,B,C": the codec names of types, joined by commas.
template <class... Ts>
std::string names() {
  std::string out;
  ((out += (out.empty() ? "" : ",") + codec<Ts>::name()), ...);
  return out;
}

template <class K, class V>
void write_entry(value_writer w, const K& k, const V& v) {
  auto e = w.write_list(2);
  codec<K>::write(e[0], k);
  codec<V>::write(e[1], v);
}

/// Reads the [key, value] entries of a map; a key twice is an error
/// (encode never writes one).
template <class Map>
Map read_map(value_reader r) {
  using K = typename Map::key_type;
  using V = typename Map::mapped_type;
  auto list = r.read_list();
  Map m;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto e = list[i].read_list(2);
    auto before = m.size();
    m.emplace_hint(m.end(), codec<K>::read(e[0]), codec<V>::read(e[1]));
    if (m.size() == before)
      malformed("the map holds a key twice (entry " + std::to_string(i) + ")");
  }
  return m;
}

} // namespace detail

/// std::vector<T>: a list, named "vector<T>"; of numbers, a list of 8-byte
/// numbers (Int64, UInt64 or Float64).
template <encodable T, class A>
struct codec<std::vector<T, A>> {
  /// soma's own codec: encode and decode may read and write a vector of
  /// 8-byte numbers as one run (detail::one_run_of_numbers). A codec of
  /// yours for such a vector has no `by_soma`, and is used as written.
  static constexpr bool by_soma = true;
  static std::string name() { return "vector<" + codec<T>::name() + ">"; }
  static void write(value_writer w, const std::vector<T, A>& xs) {
    detail::write_elements<T>(w, xs.begin(), xs.size());
  }
  static std::vector<T, A> read(value_reader r) {
    if constexpr (detail::number_element<T>) {
      using W = typename codec<T>::wire;
      if constexpr (std::is_same_v<T, W> && std::is_same_v<A, std::allocator<T>>)
        return detail::read_numbers<W>(r);
    }
    std::vector<T, A> out;
    std::size_t size = 0;
    detail::read_elements<T>(r, size, [&](T&& x) {
      if (out.empty())
        out.reserve(detail::reserve_hint<T>(size));
      out.push_back(std::move(x));
    });
    return out;
  }
};

/// std::array<T, N>: like a vector of N, named "array<T,N>"; decoding
/// checks the size.
template <encodable T, std::size_t N>
  requires std::default_initializable<T>
struct codec<std::array<T, N>> {
  static std::string name() {
    return "array<" + codec<T>::name() + "," + std::to_string(N) + ">";
  }
  static void write(value_writer w, const std::array<T, N>& xs) {
    detail::write_elements<T>(w, xs.begin(), N);
  }
  static std::array<T, N> read(value_reader r) {
    std::array<T, N> out{};
    std::size_t size = 0, i = 0;
    auto check = [&] {
      if (size != N)
        detail::malformed("an " + name() + " holds " + std::to_string(N)
                          + " elements, these bytes hold " + std::to_string(size));
    };
    detail::read_elements<T>(r, size, [&](T&& x) {
      check();
      out[i++] = std::move(x);
    });
    check();
    return out;
  }
};

/// std::map<K, V>: a list of [key, value] lists in the map's own order,
/// named "map<K,V>" (reads what an unordered_map wrote, and the other way).
template <encodable K, encodable V, class C, class A>
struct codec<std::map<K, V, C, A>> {
  static std::string name() { return "map<" + detail::names<K, V>() + ">"; }
  static void write(value_writer w, const std::map<K, V, C, A>& m) {
    auto list = w.write_list(m.size());
    std::size_t i = 0;
    for (auto& [k, v] : m)
      detail::write_entry(list[i++], k, v);
  }
  static std::map<K, V, C, A> read(value_reader r) {
    return detail::read_map<std::map<K, V, C, A>>(r);
  }
};

/// std::unordered_map<K, V>: like std::map, named "map<K,V>", its entries
/// ordered by their keys' encoded bytes, so the same map gives the same
/// bytes whatever order it was filled in.
template <encodable K, encodable V, class H, class E, class A>
struct codec<std::unordered_map<K, V, H, E, A>> {
  using map_type = std::unordered_map<K, V, H, E, A>;
  static std::string name() { return "map<" + detail::names<K, V>() + ">"; }
  static void write(value_writer w, const map_type& m) {
    std::vector<std::pair<std::string, const typename map_type::value_type*>> order;
    order.reserve(m.size());
    for (auto& kv : m)
      order.emplace_back(detail::value_bytes(&detail::write_erased<K>, &kv.first), &kv);
    // Keys that encode alike (two NaNs) are ordered by their values, so the
    // bytes never depend on the order the map was filled in.
    std::sort(order.begin(), order.end(), [](auto& a, auto& b) {
      if (a.first != b.first)
        return a.first < b.first;
      return detail::value_bytes(&detail::write_erased<V>, &a.second->second)
             < detail::value_bytes(&detail::write_erased<V>, &b.second->second);
    });
    auto list = w.write_list(m.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      detail::write_entry(list[i], order[i].second->first, order[i].second->second);
  }
  static map_type read(value_reader r) { return detail::read_map<map_type>(r); }
};

/// std::optional<T>: a list of 0 (empty) or 1 values, named "optional<T>",
/// so optional<optional<T>> keeps which level is empty.
template <encodable T>
struct codec<std::optional<T>> {
  static std::string name() { return "optional<" + codec<T>::name() + ">"; }
  static void write(value_writer w, const std::optional<T>& x) {
    auto list = w.write_list(x ? 1 : 0);
    if (x)
      codec<T>::write(list[0], *x);
  }
  static std::optional<T> read(value_reader r) {
    auto list = r.read_list();
    if (list.size() > 1)
      detail::malformed("an optional holds 0 or 1 values, these bytes hold "
                        + std::to_string(list.size()));
    if (list.size() == 0)
      return std::nullopt;
    return codec<T>::read(list[0]);
  }
};

/// std::pair<A, B>: a list of 2, named "pair<A,B>".
template <encodable A, encodable B>
struct codec<std::pair<A, B>> {
  static std::string name() { return "pair<" + detail::names<A, B>() + ">"; }
  static void write(value_writer w, const std::pair<A, B>& x) {
    auto list = w.write_list(2);
    codec<A>::write(list[0], x.first);
    codec<B>::write(list[1], x.second);
  }
  static std::pair<A, B> read(value_reader r) {
    auto list = r.read_list(2);
    // Braced initialisation reads first, then second.
    return std::pair<A, B>{codec<A>::read(list[0]), codec<B>::read(list[1])};
  }
};

/// std::tuple<Ts...>: a list of its elements, named "tuple<A,B,C>".
template <encodable... Ts>
struct codec<std::tuple<Ts...>> {
  static std::string name() { return "tuple<" + detail::names<Ts...>() + ">"; }
  static void write(value_writer w, const std::tuple<Ts...>& x) {
    auto list = w.write_list(sizeof...(Ts));
    write_at(list, x, std::index_sequence_for<Ts...>{});
  }
  static std::tuple<Ts...> read(value_reader r) {
    return read_at(r.read_list(sizeof...(Ts)), std::index_sequence_for<Ts...>{});
  }

private:
  template <std::size_t... I>
  static void write_at(list_writer& list, const std::tuple<Ts...>& x, std::index_sequence<I...>) {
    (codec<Ts>::write(list[I], std::get<I>(x)), ...);
  }
  template <std::size_t... I>
  static std::tuple<Ts...> read_at(const list_reader& list, std::index_sequence<I...>) {
    // Braced initialisation reads the elements in order.
    return std::tuple<Ts...>{codec<Ts>::read(list[I])...};
  }
};

/// std::variant<Ts...>: a list of 2, the index of the alternative held (as
/// UInt64) then its value, named "variant<A,B>".
template <encodable... Ts>
struct codec<std::variant<Ts...>> {
  static std::string name() { return "variant<" + detail::names<Ts...>() + ">"; }
  static void write(value_writer w, const std::variant<Ts...>& x) {
    if (x.valueless_by_exception())
      throw codec_error("a " + name() + " is valueless by exception");
    auto list = w.write_list(2);
    list[0].write_uint64(x.index());
    std::visit(
      [&](const auto& v) { codec<std::remove_cvref_t<decltype(v)>>::write(list[1], v); }, x);
  }
  static std::variant<Ts...> read(value_reader r) {
    auto list = r.read_list(2);
    auto index = list[0].read_uint64();
    if (index >= sizeof...(Ts))
      detail::malformed("a " + name() + " has " + std::to_string(sizeof...(Ts))
                        + " alternatives, these bytes hold alternative " + std::to_string(index));
    return read_alternative(static_cast<std::size_t>(index), list[1],
                            std::index_sequence_for<Ts...>{});
  }

private:
  template <std::size_t... I>
  static std::variant<Ts...> read_alternative(std::size_t index, value_reader r,
                                              std::index_sequence<I...>) {
    using reader = std::variant<Ts...> (*)(value_reader);
    static constexpr reader readers[] = {&read_one<I>...};
    return readers[index](r);
  }
  template <std::size_t I>
  static std::variant<Ts...> read_one(value_reader r) {
    using T = std::variant_alternative_t<I, std::variant<Ts...>>;
    return std::variant<Ts...>{std::in_place_index<I>, codec<T>::read(r)};
  }
};

} // namespace soma

SOMA_API_END
