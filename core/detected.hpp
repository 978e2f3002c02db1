#pragma once
// Optional members of trait types (backends, gap types), the C++17 form of the detection idiom:
//   detected_or_t<Default, Op, T>  Op<T> where that type is well-formed, else Default
//   is_detected_v<Op, T>           whether Op<T> is well-formed
// with Op an alias template such as `template <class B> using ChainedLaunchOf = typename B::chained_launch;`.
#include <type_traits>

namespace kbrain {

namespace detail {
template <class Default, class AlwaysVoid, template <class> class Op, class T>
struct DetectedOr {
  using type = Default;
  static constexpr bool value = false;
};
template <class Default, template <class> class Op, class T>
struct DetectedOr<Default, std::void_t<Op<T>>, Op, T> {
  using type = Op<T>;
  static constexpr bool value = true;
};
}  // namespace detail

template <class Default, template <class> class Op, class T>
using detected_or_t = typename detail::DetectedOr<Default, void, Op, T>::type;

template <template <class> class Op, class T>
inline constexpr bool is_detected_v = detail::DetectedOr<void, void, Op, T>::value;

}  // namespace kbrain
