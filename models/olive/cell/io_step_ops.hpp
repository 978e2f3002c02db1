#pragma once
// The floating-point operations of one IO cell update (io_step.hpp: dendrite, soma, axon) and of one gap-junction
// term (io_gap_junctions.hpp: the voltage difference, the term and its sum), as the code is written: each +, -, *
// and / one operation, each exp one (it costs a GPU some ten instructions: the count is of operations, not of
// instructions); a negation is not counted, and an FMA the compiler forms is two. The double and float paths differ
// (the soma's l gate and x_s exponential). tests/test_io_model.cpp counts them again through an instrumented number
// type, so a change to the kernels that changes the count fails there until these are updated.
#include <cstddef>
#include <cstdint>

namespace kbrain::olive {

struct IoOps {
  int arithmetic = 0, exps = 0;
  constexpr int total() const { return arithmetic + exps; }
};

inline constexpr IoOps kIoCellOpsDouble{223, 21};
inline constexpr IoOps kIoCellOpsFloat{223, 22};
inline constexpr IoOps kIoJunctionOps{7, 1};

constexpr IoOps io_cell_ops(std::size_t real_bytes) { return real_bytes == 8 ? kIoCellOpsDouble : kIoCellOpsFloat; }

// Operations of one update of `cells` cells coupled by `junctions` directed junctions.
inline double io_step_flops(std::int64_t cells, double junctions, std::size_t real_bytes) {
  return double(cells) * double(io_cell_ops(real_bytes).total()) + junctions * double(kIoJunctionOps.total());
}

}  // namespace kbrain::olive
