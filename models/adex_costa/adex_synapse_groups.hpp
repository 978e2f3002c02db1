#pragma once
// The GPU loop order of the synapse pass (adex_synapse_pass.hpp has the pass and its arithmetic): a thread per
// (row block, group of G neighbouring columns), one G-wide load and store per array, the loads of two rows issued
// before the first of them is updated, and the connection rule computed where the connections follow one (all, half)
// instead of the flag read; 2 columns a thread where the launch fills the GPU, 1 where it does not.
// bench/README.md ("Column groups") has the A/B against the column pairs it replaced.
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/adex_costa/adex_connectivity.hpp"
#include "models/adex_costa/adex_synapse_pass.hpp"

namespace kbrain::adex {

// How the group pass learns whether synapse (i, j) is connected: from the stored flags (a connection file) or from
// the rule that set them (all, half), computed from (i, j) with i the row's index in the whole network, which saves
// the flag's byte per synapse-step.
struct ConnectionRule {
  Connectivity connectivity = Connectivity::File;
  Parity parity = Parity::PostEven;
  KOKKOS_INLINE_FUNCTION bool stored() const { return connectivity == Connectivity::File; }
  KOKKOS_INLINE_FUNCTION bool connected(std::int64_t i, std::int64_t j) const {
    return connected_by_rule(connectivity, parity, i, j);
  }
};

// G neighbouring values, loaded or stored by one memory access. A group starts at a multiple of G columns and a row's
// pitch is whole 128-byte lines (AdexState::row_pitch), as is a tile, so a group never straddles a row or a tile and is
// aligned to its size.
template <class T, int G>
struct alignas(G * sizeof(T)) GroupOf {
  T v[G];
};
template <int G, class T>
KOKKOS_FORCEINLINE_FUNCTION GroupOf<T, G> load_group(const T* at) {
  return *reinterpret_cast<const GroupOf<T, G>*>(at);
}
template <int G, class T>
KOKKOS_FORCEINLINE_FUNCTION void store_group(T* at, const GroupOf<T, G>& g) {
  *reinterpret_cast<GroupOf<T, G>*>(at) = g;
}

// How the group pass loads and stores a group: plain accesses (the product). The lab's variants with cache hints
// (bench/lab/adex_pass_probe.cpp) have the same two members.
struct PlainGroupAccess {
  template <int G, class T>
  KOKKOS_FORCEINLINE_FUNCTION static GroupOf<T, G> load(const T* at) {
    return load_group<G>(at);
  }
  template <int G, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store(T* at, const GroupOf<T, G>& g) {
    store_group<G>(at, g);
  }
};

// Each column's arithmetic and its rows' order are SynapsePass's, so the bits are too. The thread owns its group's
// values and stores back unchanged those of a column that is untouched, unconnected or past the row's end (the last
// group of a row may reach into the row's padding, which it reads and writes back as it was).
template <class Real, class Mem, int G, int RowsInFlight, class Access = PlainGroupAccess>
struct SynapsePassGroups {
  static_assert(G >= 1 && 128 % (G * sizeof(Real)) == 0, "a group must divide a 128-byte line");
  SynapsePass<Real, Mem> pass;
  ConnectionRule rule{};  // by default the stored flags

  // One row of a group: what its update reads (active: the row exists and its update touches the group).
  struct Loaded {
    bool active = false, pre = false;
    GroupOf<std::uint8_t, G> conn{};
    GroupOf<Real, G> A{}, U{}, R{}, u{};
  };
  // The columns of a group: their step, whether the step touches them, whether they exist.
  struct Columns {
    ColumnStep c[G];
    bool col[G], real[G], any = false;
  };

  // The threads of a sum group (adex_sum_order.hpp): on GPUs lanes of one warp.
  static constexpr int kGroupThreads = int(kColumnsPerSumGroup / G);
  static_assert(kColumnsPerSumGroup % G == 0 && 32 % kGroupThreads == 0, "a sum group is whole threads of a warp");
  static constexpr bool kOnHost = std::is_same<Mem, Kokkos::HostSpace>::value;

  KOKKOS_INLINE_FUNCTION std::int64_t groups() const { return (pass.st.n_post + G - 1) / G; }
  // GPUs: k = (block, group), a block's groups padded to whole warps as SynapsePass's columns are; a sum group's lanes
  // add their m̄ summands by exchanging registers. Host backends (the tests): k = (block, sum group), whose threads'
  // walks run one after the other before the same additions in a loop.
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
#if defined(__CUDA_ARCH__)
    const std::int64_t width = gpu_columns(groups()), b = k / width, q = k - b * width;
    ColumnScan scan[G];
    if (q < groups()) walk(b, G * q, scan);
    double sum;
    long long count;
    thread_sum(scan, sum, count);
    for (int lanes = 1; lanes < kGroupThreads; lanes *= 2) {  // the tree's levels above the thread's own
      sum += __shfl_xor_sync(0xffffffffu, sum, lanes);
      count += __shfl_xor_sync(0xffffffffu, count, lanes);
    }
    if (q % kGroupThreads == 0 && G * q < pass.st.n_post) pass.store_group(b, G * q / kColumnsPerSumGroup, sum, count);
#else
    const std::int64_t b = k / pass.st.sum_groups, sg = k - b * pass.st.sum_groups;
    double sums[kGroupThreads];
    long long counts[kGroupThreads];
    for (int t = 0; t < kGroupThreads; ++t) {
      const std::int64_t q = sg * kGroupThreads + t;
      ColumnScan scan[G];
      if (q < groups()) walk(b, G * q, scan);
      thread_sum(scan, sums[t], counts[t]);
    }
    pairwise_tree<kGroupThreads>(sums, counts);
    pass.store_group(b, sg, sums[0], counts[0]);
#endif
  }
  std::int64_t launch_size(std::int64_t blocks) const {
    return kOnHost ? blocks * pass.st.sum_groups : blocks * gpu_columns(groups());
  }

  // The tree's levels within a thread's G columns.
  KOKKOS_INLINE_FUNCTION static void thread_sum(const ColumnScan* scan, double& sum, long long& count) {
    double sums[G];
    long long counts[G];
    for (int g = 0; g < G; ++g) sums[g] = scan[g].sum, counts[g] = scan[g].count;
    pairwise_tree<G>(sums, counts);
    sum = sums[0];
    count = counts[0];
  }

  // The flags, A and (if the row fired) U, R, u are loaded together, not one after the other: a dependent load would
  // double the memory latency of every row.
  KOKKOS_INLINE_FUNCTION Loaded load(std::int64_t i, std::int64_t last, std::int64_t j, const Columns& cols) const {
    Loaded v;
    if (i >= last) return v;
    const auto& st = pass.st;
    v.pre = st.pre_flag(i) != 0;
    if (!(v.pre || cols.any)) return v;
    v.active = true;
    const std::int64_t id = pass.slot(i, j);
    if (rule.stored()) v.conn = load_group<G>(st.conn.data() + pass.flag_slot(i, j));
    v.A = Access::template load<G>(st.A.data() + id);
    if (v.pre) {
      v.U = Access::template load<G>(st.U.data() + id);
      v.R = Access::template load<G>(st.R.data() + id);
      v.u = Access::template load<G>(st.u.data() + id);
    }
    return v;
  }

  KOKKOS_INLINE_FUNCTION void update(std::int64_t i, std::int64_t j, const Columns& cols, Loaded& v,
                                     ColumnScan* scan) const {
    bool any_pre = false, any_A = false;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int g = 0; g < G; ++g) {
      SynapseValues<Real> s;
      s.touched = cols.real[g] && (v.pre || cols.col[g]);
      s.connected = rule.stored() ? v.conn.v[g] != 0 : rule.connected(i, j + g);
      s.A = v.A.v[g], s.U = v.U.v[g], s.R = v.R.v[g], s.u = v.u.v[g];
      const auto changed = pass.apply(i, v.pre, cols.c[g], s, scan[g]);
      v.A.v[g] = s.A, v.U.v[g] = s.U, v.R.v[g] = s.R, v.u.v[g] = s.u;
      any_pre = any_pre || changed.pre;
      any_A = any_A || changed.A;
    }
    const auto& st = pass.st;
    const std::int64_t id = pass.slot(i, j);
    if (any_pre) {
      Access::template store<G>(st.R.data() + id, v.R);
      Access::template store<G>(st.u.data() + id, v.u);
      Access::template store<G>(st.U.data() + id, v.U);
    }
    if (any_A) Access::template store<G>(st.A.data() + id, v.A);
  }

  // Group j..j+G-1 of block b. Rows are updated in ascending order; only their loads run ahead: a later row's loads do
  // not depend on an earlier row's stores, but the compiler cannot know that the arrays do not overlap, and issuing
  // them early shortens a thread's chain of memory latencies (at the price of registers).
  KOKKOS_FORCEINLINE_FUNCTION void walk(const std::int64_t b, const std::int64_t j, ColumnScan* scan) const {
    Columns cols;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int g = 0; g < G; ++g) {
      cols.real[g] = j + g < pass.st.n_post;
      cols.c[g] = cols.real[g] ? pass.column(j + g) : ColumnStep{false, false, 0.0, 0.0, 0.0};
      cols.col[g] = cols.c[g].post || cols.c[g].owes;
      cols.any = cols.any || cols.col[g];
    }
    const std::int64_t last = pass.row_end(b);
    for (std::int64_t i = pass.row_begin + b * kRowsPerBlock; i < last; i += RowsInFlight) {
      Loaded v[RowsInFlight];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int r = 0; r < RowsInFlight; ++r) v[r] = load(i + r, last, j, cols);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int r = 0; r < RowsInFlight; ++r)
        if (v[r].active) update(i + r, j, cols, v[r], scan);
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int g = 0; g < G; ++g)
      if (cols.real[g]) pass.store_winner(b, j + g, scan[g]);
  }
};

// The product's GPU groups. Wide: 2 columns (float 8-byte, double 16-byte accesses), 2 rows in flight, launched
// under bounds: the light-weight launch gave it more registers than a plain launch and so fewer resident threads, and
// the bounds cap them without spilling. Narrow: a column per thread, 4 rows in flight, for passes whose wide launch
// would keep less than half of the threads the GPU holds for it: such a pass is bound by each thread's chain of row
// latencies rather than by bandwidth, and twice the threads halve the chain per byte, as do twice the rows in flight
// (the few resident threads leave registers to spare). bench/README.md ("Column groups", and the sum groups'
// follow-up under "Dense plastic AdEx step") has the A/B of both and of the size where they cross.
template <class Real, class Mem>
using WideSynapsePass = SynapsePassGroups<Real, Mem, 2, 2>;
template <class Real, class Mem>
using NarrowSynapsePass = SynapsePassGroups<Real, Mem, 1, 4>;
using WideSynapsePassBounds = Kokkos::LaunchBounds<128, 5>;

// Whether the GPU pass of `blocks` row blocks of n_post columns runs wide on `exec`: its wide launch's threads against
// half of those the GPU keeps resident under the bounds (exec.concurrency(): the GPU's resident threads, 2048 a
// multiprocessor; the bounds allow 128 x 5 of them).
template <class Exec>
bool gpu_pass_is_wide(const Exec& exec, std::int64_t n_post, std::int64_t blocks) {
  const std::int64_t wide_threads = blocks * gpu_columns((n_post + 1) / 2);
  const std::int64_t resident = std::int64_t(exec.concurrency()) / 2048 * (128 * 5);
  return 2 * wide_threads >= resident;
}

// The GPU pass over `blocks` row blocks of `pass`, queued on `exec`. Light-weight: the functor holds the whole state
// (about 1 KiB), passed as a kernel parameter rather than through constant memory, which waits for the previous
// kernel.
template <class Exec, class Real, class Mem>
void launch_gpu_synapse_pass(const Exec& exec, const char* name, const SynapsePass<Real, Mem>& pass,
                             const ConnectionRule& rule, std::int64_t blocks) {
  using Index = Kokkos::IndexType<std::int64_t>;
  if (gpu_pass_is_wide(exec, pass.st.n_post, blocks)) {
    const WideSynapsePass<Real, Mem> wide{pass, rule};
    using Policy = Kokkos::RangePolicy<Exec, Index, WideSynapsePassBounds>;
    Kokkos::parallel_for(name, kx::light_weight(Policy(exec, 0, wide.launch_size(blocks))), wide);
  } else {
    const NarrowSynapsePass<Real, Mem> narrow{pass, rule};
    using Policy = Kokkos::RangePolicy<Exec, Index>;
    Kokkos::parallel_for(name, kx::light_weight(Policy(exec, 0, narrow.launch_size(blocks))), narrow);
  }
}

}  // namespace kbrain::adex
