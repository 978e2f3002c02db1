#pragma once
// The device state of the dense plastic AdEx network. What depends on one neuron's spike times is kept per neuron:
// the presynaptic trace FFp per row, the postsynaptic traces FBp, FBn per column, each as (value at its last event,
// time of that event) and decayed exactly when read. r and u change only at presynaptic events (a postsynaptic event
// only decays them, and exact decays compose), so they too are decayed per row. That leaves per synapse only what is
// truly per synapse: R, u, U, A and the connection flag — 4 reals and a byte (docs/models/adex-costa.md: bytes per
// synapse-step). Synapses are dense, row = presynaptic; a row holds `pitch` columns (n_post rounded up to whole
// 128-byte lines of Real), so every row starts on a line, whatever the row length. The padding is never read.
// Two layouts of the four values (`tile_shift`):
//  - arrays (CPUs): R, u, U, A each an array, synapse (i, j) at (i - row_begin) * pitch + j. The CPU pass's SIMD loop
//    reads each of them contiguously along a row.
//  - tiles (GPUs), an array of structures of arrays: a row is pitch / T
//    tiles of T = 2^tile_shift columns (one 128-byte line of Real), a tile holds R[T], u[T], U[T], A[T]; R, u, U, A
//    are views into one buffer at offsets 0, T, 2T, 3T, and slot(i, j) = (i - row_begin) * 4 * pitch + (j / T) * 4T
//    + j % T. A warp's four loads of a row then fall in one stretch of memory, which the GPU's memory moves faster
//    than four stretches apart, while a synapse touched only for A still reads A alone (interleaving each synapse's
//    values would read all four: bench/README.md, "tiles").
// The connection flags are one array in both layouts, at flag_slot(i, j) = (i - row_begin) * pitch + j.
// A postsynaptic update needs the mean m̄ over all synapses whose target fired, so its last part (A -= etaA/2 m̄,
// clip) is applied at the next touch of the synapse: post_prev marks the columns that still owe it and mbar(0) holds
// that m̄. Readers (AdexReader) apply it on the fly.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace kbrain::adex {

// Rows per block of the synapse pass: each (block, column) thread walks its block's rows in ascending order, so the
// winner of a column and the m̄ partial sums have a fixed order on every backend and for any split of blocks.
inline constexpr std::int64_t kRowsPerBlock = 64;
// Columns per chunk of the first level of the m̄ sum (then chunks per block, then blocks: a fixed tree).
inline constexpr std::int64_t kColumnsPerChunk = 256;
// Columns whose m̄ summands the synapse pass adds before it stores them (adex_sum_order.hpp: the first levels of a
// chunk's tree): a warp's columns on GPUs.
inline constexpr std::int64_t kColumnsPerSumGroup = 32;

template <class Real, class Mem>
struct AdexState {
  using Reals = Kokkos::View<Real*, Mem>;
  using Flags = Kokkos::View<int*, Mem>;
  using Times = Kokkos::View<double*, Mem>;  // times, per-neuron traces and sums: double in both precisions
  std::int64_t n_pre = 0, n_post = 0, pitch = 0, blocks = 0, chunks = 0, sum_groups = 0;
  std::int64_t row_begin = 0, rows = 0;  // the rows whose synapses this state holds (a rank's part; all: 0, n_pre)

  // AdEx neurons (n_post; in mxm also the rows)
  Reals V, VT, x, I;
  Flags crossed;                    // the neuron's own threshold crossing this step
  // spike flags of this step: rows, columns (mxm: the same view), columns that owe the m̄ part of a post update
  Flags pre_flag, post_flag, post_prev;
  // per row: FFp at its last event and that time; this step's FFp before/after the increment, r and u decays.
  // Per-neuron values are double in both precisions: they cost no bandwidth, and the U update cancels two trace
  // products whose float rounding would dominate a small U.
  Times ffp_val, ffp_before, ffp_now, decay_r, decay_u;
  Times t_pre;
  // per column: FBp, FBn at their last event and that time; their values at this step before the increment
  Times fbp_val, fbn_val, fbp_before, fbn_before;
  Times t_post;
  // per synapse: the values (tiles: views into `values`, which holds them) and the flags
  int tile_shift = -1;  // -1: arrays; else tiles of 2^tile_shift columns
  Reals values;
  Reals R, u, U, A;
  Kokkos::View<std::uint8_t*, Mem> conn;
  // per (block, column): the column's winning row in the block (-1: none) and its current; per (block, sum group of
  // kColumnsPerSumGroup columns): the m̄ summands' sum (the first levels of the chunk's tree) and count
  Flags win_row;
  Reals win_I;
  Times msum;
  Kokkos::View<long long*, Mem> mcount;
  Times chunk_sum, block_sum;        // (block, chunk), block
  Kokkos::View<long long*, Mem> chunk_count, block_count;
  Times mbar;                        // mbar(0): m̄ of the last step, applied to post_prev columns
  Flags blocks_done;                 // blocks_done(0): row blocks summed so far in this step's end (GPUs; 0 between steps)
  // each row's presynaptic events, each column's postsynaptic events (post updates) and each neuron's crossings so
  // far: counted where they happen, summed once at the end, so that a step needs no reduction for them
  Kokkos::View<long long*, Mem> pre_events, post_events, neuron_spikes;

  static std::int64_t bytes_per_slot() { return 4 * std::int64_t(sizeof(Real)) + 1; }
  // Slots of a synapse row of n_post columns: whole 128-byte lines of Real (an even number, as the GPU's column
  // pairs need).
  static std::int64_t row_pitch(std::int64_t n_post) {
    constexpr std::int64_t per_line = 128 / std::int64_t(sizeof(Real));
    return (n_post + per_line - 1) / per_line * per_line;
  }
  // Bytes of one synapse row (every array, padding included).
  static std::int64_t row_bytes(std::int64_t n_post) { return row_pitch(n_post) * bytes_per_slot(); }
  // Device bytes of a network: synapses, partials and per-neuron arrays (fixed_bytes: all but the synapses).
  static std::int64_t fixed_bytes(std::int64_t n_pre, std::int64_t n_post) {
    return bytes(n_pre, n_post) - n_pre * row_bytes(n_post);
  }
  static std::int64_t bytes(std::int64_t n_pre, std::int64_t n_post) {
    const std::int64_t blocks = (n_pre + kRowsPerBlock - 1) / kRowsPerBlock;
    const std::int64_t groups = (n_post + kColumnsPerSumGroup - 1) / kColumnsPerSumGroup;
    return n_pre * row_bytes(n_post) + blocks * (n_post * (4 + std::int64_t(sizeof(Real))) + groups * 2 * 8) +
           (n_pre + n_post) * 72;
  }
  // The layout a memory space's state takes by default: tiles of one line where the memory is a GPU's.
  static constexpr int default_tile_shift() {
    return std::is_same<Mem, Kokkos::HostSpace>::value ? -1 : (sizeof(Real) == 4 ? 5 : 4);
  }
  // The slot of synapse (i, j)'s values in R, u, U, A (i a global row of this state's part) and of its flag in conn.
  KOKKOS_INLINE_FUNCTION std::int64_t slot(std::int64_t i, std::int64_t j) const { return value_slot(i - row_begin, j); }
  KOKKOS_INLINE_FUNCTION std::int64_t flag_slot(std::int64_t i, std::int64_t j) const { return (i - row_begin) * pitch + j; }
  // The same for row r counted from the first row the views hold (a streamed chunk's buffer starts at its own row).
  KOKKOS_INLINE_FUNCTION std::int64_t value_slot(std::int64_t r, std::int64_t j) const {
    if (tile_shift < 0) return r * pitch + j;
    return r * 4 * pitch + ((j >> tile_shift) << (tile_shift + 2)) + (j & ((std::int64_t(1) << tile_shift) - 1));
  }
  // The buffers the values live in (tiles: one; arrays: four, R, u, U, A) and the reals a row takes in each.
  int value_buffers() const { return tile_shift < 0 ? 4 : 1; }
  std::int64_t row_stride() const { return tile_shift < 0 ? pitch : 4 * pitch; }
  // Points R, u, U, A at `buffers` (value_buffers() of them, rows * row_stride() reals each; tiles: the four at offsets
  // 0, T, 2T, 3T of the one, as subviews, which keep it alive as long as any of them is held).
  void point_values(const std::array<Reals, 4>& buffers) {
    if (tile_shift < 0) {
      values = Reals();
      R = buffers[0], u = buffers[1], U = buffers[2], A = buffers[3];
      return;
    }
    values = buffers[0];
    const std::int64_t T = std::int64_t(1) << tile_shift, n = std::int64_t(values.extent(0)) - 3 * T;
    const auto from = [&](std::int64_t offset) { return Reals(Kokkos::subview(values, std::make_pair(offset, offset + n))); };
    R = from(0);
    u = from(T);
    U = from(2 * T);
    A = from(3 * T);
  }
  // Chunk c's columns: [c * kColumnsPerChunk, chunk_end(c)) (the last chunk may be partial).
  KOKKOS_INLINE_FUNCTION std::int64_t chunk_end(std::int64_t c) const {
    return (c + 1) * kColumnsPerChunk < n_post ? (c + 1) * kColumnsPerChunk : n_post;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t chunk_width(std::int64_t c) const { return chunk_end(c) - c * kColumnsPerChunk; }

  // Per-row arrays cover every row (each rank computes every flag and trace); synapses only rows
  // [first_row, first_row + local_rows), a whole number of blocks.
  // Without `synapses_here` the synapse arrays are left empty for the caller to point at memory of its own (the
  // out-of-core run's page-locked host arrays). `tiles`: the values' layout (-1 arrays, else a tile of 2^tiles columns,
  // at most a line).
  void allocate(std::int64_t all_rows, std::int64_t first_row, std::int64_t local_rows, std::int64_t cols,
                bool shared_neurons, bool synapses_here = true, int tiles = default_tile_shift()) {
    const std::int64_t rows = all_rows;
    n_pre = all_rows;
    n_post = cols;
    pitch = row_pitch(cols);
    tile_shift = tiles;
    if (tiles >= 0 && (std::int64_t(sizeof(Real)) << tiles) > 128)
      throw std::invalid_argument("adex state: a tile of 2^" + std::to_string(tiles) + " columns is wider than a line");
    row_begin = first_row;
    this->rows = local_rows;
    blocks = (local_rows + kRowsPerBlock - 1) / kRowsPerBlock;
    chunks = (cols + kColumnsPerChunk - 1) / kColumnsPerChunk;
    sum_groups = (cols + kColumnsPerSumGroup - 1) / kColumnsPerSumGroup;
    const std::int64_t slots = local_rows * pitch;
    V = Reals("adex_V", cols); VT = Reals("adex_VT", cols); x = Reals("adex_x", cols); I = Reals("adex_I", cols);
    crossed = Flags("adex_crossed", cols);
    pre_flag = Flags("adex_pre_flag", rows);
    post_flag = shared_neurons ? pre_flag : Flags("adex_post_flag", cols);
    post_prev = Flags("adex_post_prev", cols);
    ffp_val = Times("adex_ffp", rows); ffp_before = Times("adex_ffp_before", rows); ffp_now = Times("adex_ffp_now", rows);
    decay_r = Times("adex_decay_r", rows); decay_u = Times("adex_decay_u", rows);
    t_pre = Times("adex_t_pre", rows);
    fbp_val = Times("adex_fbp", cols); fbn_val = Times("adex_fbn", cols);
    fbp_before = Times("adex_fbp_before", cols); fbn_before = Times("adex_fbn_before", cols);
    t_post = Times("adex_t_post", cols);
    const auto no_init = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
    if (synapses_here) {
      if (tile_shift < 0)
        point_values({Reals(no_init("adex_R"), slots), Reals(no_init("adex_u"), slots),
                      Reals(no_init("adex_U"), slots), Reals(no_init("adex_A"), slots)});
      else
        point_values({Reals(no_init("adex_values"), local_rows * row_stride()), Reals(), Reals(), Reals()});
      conn = Kokkos::View<std::uint8_t*, Mem>(no_init("adex_conn"), slots);
    }
    win_row = Flags("adex_win_row", blocks * cols); win_I = Reals("adex_win_I", blocks * cols);
    msum = Times("adex_msum", blocks * sum_groups);
    mcount = Kokkos::View<long long*, Mem>("adex_mcount", blocks * sum_groups);
    chunk_sum = Times("adex_chunk_sum", blocks * chunks);
    chunk_count = Kokkos::View<long long*, Mem>("adex_chunk_count", blocks * chunks);
    block_sum = Times("adex_block_sum", blocks);
    block_count = Kokkos::View<long long*, Mem>("adex_block_count", blocks);
    mbar = Times("adex_mbar", 1);
    blocks_done = Flags("adex_blocks_done", 1);
    pre_events = Kokkos::View<long long*, Mem>("adex_pre_events", rows);
    post_events = Kokkos::View<long long*, Mem>("adex_post_events", cols);
    neuron_spikes = Kokkos::View<long long*, Mem>("adex_neuron_spikes", cols);
  }
};

}  // namespace kbrain::adex
