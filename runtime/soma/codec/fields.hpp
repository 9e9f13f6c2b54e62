#pragma once

/// @file
/// soma::fields_codec: the codec of a struct written as its fields. Included
/// by soma/codec.hpp; include that.

#include <concepts>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

namespace detail {

template <class Tuple, std::size_t... I>
constexpr bool all_encodable(std::index_sequence<I...>) {
  return (encodable<std::remove_cvref_t<std::tuple_element_t<I, Tuple>>> && ...);
}

} // namespace detail

template <class T>
struct fields_codec {
  static void write(value_writer w, const T& x) {
    // fields() takes a T& so that one function serves writing and reading;
    // writing only reads through it.
    auto fields = codec<T>::fields(const_cast<T&>(x));
    constexpr auto n = std::tuple_size_v<decltype(fields)>;
    check<decltype(fields)>();
    auto list = w.write_list(n);
    write_at(list, fields, std::make_index_sequence<n>{});
  }

  static T read(value_reader r) {
    static_assert(std::default_initializable<T>,
                  "soma::fields_codec<T>: decode default-constructs T, then fills its fields");
    T out{};
    auto fields = codec<T>::fields(out);
    constexpr auto n = std::tuple_size_v<decltype(fields)>;
    check<decltype(fields)>();
    auto list = r.read_list();
    if (list.size() != n)
      detail::malformed("a " + codec<T>::name() + " has " + std::to_string(n)
                        + " fields, these bytes hold " + std::to_string(list.size()));
    read_at(list, fields, std::make_index_sequence<n>{});
    return out;
  }

private:
  template <class Fields>
  static constexpr void check() {
    static_assert(detail::all_encodable<Fields>(std::make_index_sequence<std::tuple_size_v<Fields>>{}),
                  "soma::fields_codec<T>: every field named by fields() needs a soma::codec "
                  "(see docs/codec.md)");
  }

  template <class Fields, std::size_t... I>
  static void write_at(list_writer& list, const Fields& fields, std::index_sequence<I...>) {
    (codec<std::remove_cvref_t<std::tuple_element_t<I, Fields>>>::write(list[I],
                                                                         std::get<I>(fields)),
     ...);
  }

  template <class Fields, std::size_t... I>
  static void read_at(const list_reader& list, Fields& fields, std::index_sequence<I...>) {
    ((std::get<I>(fields) =
        codec<std::remove_cvref_t<std::tuple_element_t<I, Fields>>>::read(list[I])),
     ...);
  }
};

} // namespace soma

SOMA_API_END
