#pragma once
// Which (pre, post) slots of the dense matrix are connected: one rule for the host (the plan, probes, tests) and the
// device (the initial connection flags). A connection file's flags are uploaded instead.
#include <cstdint>

#include <Kokkos_Macros.hpp>

namespace kbrain::adex {

enum class Connectivity { All, Half, File };
enum class Parity { PostEven, PreEven, BothEven };

// The rule of `all` and `half` (a file's flags are not a rule: false).
KOKKOS_INLINE_FUNCTION bool connected_by_rule(Connectivity c, Parity p, std::int64_t i, std::int64_t j) {
  if (c == Connectivity::All) return true;
  if (c == Connectivity::File) return false;
  return p == Parity::PostEven ? j % 2 == 0 : p == Parity::PreEven ? i % 2 == 0 : (i % 2 == 0 && j % 2 == 0);
}

}  // namespace kbrain::adex
