#pragma once
// The out-of-core synapse pass of the dense AdEx network (a GPU device budget smaller than the synapses): R, u, U, A
// (in the state's layout: adex_state.hpp) and the connection flags live in page-locked host memory; each step streams
// them through the device in chunks of whole row blocks, double-buffered on two execution-space instances, so chunk
// k+1 is copied in while chunk k computes and chunk k-1 is copied out. The chunk order alternates every step (first to
// last, then last to first): the chunk a step ends with is still in its device buffer when the next step starts with
// it, so its copy-in is skipped. Results are bit-identical to the in-core pass (the same kernel over the same rows
// and blocks).
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"

#include "backends/execution_instances.hpp"
#include "backends/link_bandwidth.hpp"
#include "models/adex_costa/adex_kernels.hpp"
#include "models/adex_costa/adex_state.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"

namespace kbrain::adex {

template <class Backend, class Real>
class StreamedSynapses {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using Host = typename Backend::staging_memory_space;

  // Holds st's synapse rows in host memory, streamed in chunks of `chunk_rows` (a multiple of kRowsPerBlock), and
  // points st's synapse views at the host memory (device code reads them in place, through unified addressing, for
  // initialisation and samplers).
  StreamedSynapses(AdexState<Real, Mem>& st, std::int64_t chunk_rows)
      : pitch_(st.pitch), stride_(st.row_stride()), rows_(st.rows), chunk_rows_(chunk_rows),
        buffers_per_chunk_(st.value_buffers()), instances_(2) {
    const std::int64_t slots = st.rows * st.pitch;
    auto no_init = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
    std::array<Reals, 4> host_values;
    for (int v = 0; v < buffers_per_chunk_; ++v) {
      host_[v] = HostReals(no_init("adex_host_values"), st.rows * stride_);
      host_values[v] = Reals(host_[v].data(), st.rows * stride_);
    }
    st.point_values(host_values);
    host_conn_ = Kokkos::View<std::uint8_t*, Host>(no_init("adex_host_conn"), slots);
    st.conn = Kokkos::View<std::uint8_t*, Mem>(host_conn_.data(), slots);
    for (auto& b : buffers_) {
      for (int v = 0; v < buffers_per_chunk_; ++v) b.values[v] = Reals(no_init("adex_chunk_values"), chunk_rows * stride_);
      b.conn = Kokkos::View<std::uint8_t*, Mem>(no_init("adex_chunk_conn"), chunk_rows * pitch_);
    }
    link_bytes_per_s_ = host_to_device_bytes_per_s<Backend>();
  }

  std::int64_t chunks() const { return (rows_ + chunk_rows_ - 1) / chunk_rows_; }
  std::int64_t chunk_rows() const { return chunk_rows_; }
  double bytes_moved() const { return bytes_moved_; }
  double link_bytes_per_s() const { return link_bytes_per_s_; }

  // One step's pass (pass.row_begin / rows: the state's rows); `forward` alternates every step.
  void run(const SynapsePass<Real, Mem>& pass, const ConnectionRule& rule, bool forward) {
    Exec().fence();  // the flags and traces the pass reads
    const std::int64_t count = chunks();
    for (std::int64_t k = 0; k < count; ++k) {
      const std::int64_t c = forward ? k : count - 1 - k;
      const int slot = static_cast<int>((k + first_slot_) % 2);
      const Exec& exec = instances_[slot];
      Buffer& buf = buffers_[slot];
      const std::int64_t first = c * chunk_rows_, rows = std::min(chunk_rows_, rows_ - first);
      const auto span = std::make_pair(first * stride_, (first + rows) * stride_);
      const auto part = std::make_pair(std::int64_t(0), rows * stride_);
      if (resident_[slot] != c) {
        for (int v = 0; v < buffers_per_chunk_; ++v)
          Kokkos::deep_copy(exec, Kokkos::subview(buf.values[v], part), Kokkos::subview(host_[v], span));
        if (rule.stored())  // a rule is computed by the pass: its flags need not cross the link
          Kokkos::deep_copy(exec, Kokkos::subview(buf.conn, std::make_pair(std::int64_t(0), rows * pitch_)),
                            Kokkos::subview(host_conn_, std::make_pair(first * pitch_, (first + rows) * pitch_)));
        bytes_moved_ += double(rows * pitch_) * double(4 * sizeof(Real) + (rule.stored() ? 1 : 0));
        resident_[slot] = c;
      }
      SynapsePass<Real, Mem> p = pass;
      p.st.point_values(buf.values);
      p.st.conn = buf.conn;
      p.row_begin = pass.row_begin + first;
      p.rows = rows;
      p.block_offset = first / kRowsPerBlock;
      const std::int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
      launch_gpu_synapse_pass(exec, "kbrain::adex::synapses_streamed", p, rule, blocks);
      // the connection flags never change: only the four values go back
      for (int v = 0; v < buffers_per_chunk_; ++v)
        Kokkos::deep_copy(exec, Kokkos::subview(host_[v], span), Kokkos::subview(buf.values[v], part));
      bytes_moved_ += double(rows * pitch_) * double(4 * sizeof(Real));
    }
    first_slot_ = static_cast<int>((count - 1 + first_slot_) % 2);  // the last chunk's buffer starts the next step
    instances_.fence();
  }

 private:
  using Reals = Kokkos::View<Real*, Mem>;
  using HostReals = Kokkos::View<Real*, Host>;
  // A chunk's values in the state's layout (tiles: values[0]; arrays: R, u, U, A) and its flags.
  struct Buffer {
    std::array<Reals, 4> values;
    Kokkos::View<std::uint8_t*, Mem> conn;
  };

  std::int64_t pitch_, stride_, rows_, chunk_rows_;  // stride_: reals a row takes in each values buffer
  int buffers_per_chunk_;
  ExecutionInstances<Exec> instances_;
  std::array<HostReals, 4> host_;  // the values in the state's layout, as a chunk's
  Kokkos::View<std::uint8_t*, Host> host_conn_;
  Buffer buffers_[2];
  std::int64_t resident_[2] = {-1, -1};
  int first_slot_ = 0;
  double bytes_moved_ = 0, link_bytes_per_s_ = 0;
};

}  // namespace kbrain::adex
