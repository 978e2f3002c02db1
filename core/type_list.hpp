#pragma once
// Compile-time lists of types (std::tuple) visited at run time: the backends (backends/registry.hpp) and the models
// (models/registry.hpp) are such lists.
#include <tuple>

namespace kbrain {

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for every T of the tuple type List, in order.
template <class List, class F>
void for_each_type(F&& f) {
  std::apply([&](auto... t) { (f(TypeTag<decltype(t)>{}), ...); }, List{});
}

}  // namespace kbrain
