#pragma once
// The peer halo exchange of a distributed network (docs/mpi.md, "Peer exchange"): ranks on one node copy their
// packed halo blocks straight into their neighbours' device receive buffers through the backend's peer_transport
// (CUDA: IPC), double buffered by step parity, and MPI carries only one step-numbered token per neighbour and step.
// Model-independent: a Backend (for its peer_transport and memory space) and the value type of the halo. Only
// compiled with KBRAIN_ENABLE_MPI.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "core/detected.hpp"
#include "core/parallel/comm_plan.hpp"
#include "core/parallel/mpi_plan.hpp"

namespace kbrain {

// How the halo values travel: Auto = peer copies where the backend and the placement of the ranks allow them, MPI
// otherwise; Mpi = always through MPI; Peer = peer copies or an error.
enum class HaloExchange { Auto, Mpi, Peer };
// What a run uses: MPI reads and writes the buffers where they are (host backends, CUDA-aware MPI); MPI on page-
// locked host copies of device buffers; device-to-device peer copies with MPI tokens.
enum class HaloExchangeMode { InPlace, Staged, Peer };

// "auto" | "mpi" | "peer"; throws std::invalid_argument otherwise.
inline HaloExchange parse_halo_exchange(const std::string& s) {
  if (s == "auto") return HaloExchange::Auto;
  if (s == "mpi") return HaloExchange::Mpi;
  if (s == "peer") return HaloExchange::Peer;
  throw std::invalid_argument("halo exchange '" + s + "': expected auto | mpi | peer");
}

inline const char* halo_exchange_mode_name(HaloExchangeMode m) {
  switch (m) {
    case HaloExchangeMode::InPlace: return "mpi";
    case HaloExchangeMode::Staged: return "mpi-staged";
    case HaloExchangeMode::Peer: return "peer";
  }
  return "?";
}

// Backend::peer_transport if the backend declares one (backends/cuda/cuda_peer_transport.hpp), else void.
template <class Backend>
using PeerTransportMemberOf = typename Backend::peer_transport;
template <class Backend>
using PeerTransportOf = detected_or_t<void, PeerTransportMemberOf, Backend>;

template <class Backend, class Real>
class PeerHaloExchange {
 public:
  using Mem = typename Backend::memory_space;
  using Transport = PeerTransportOf<Backend>;
  static constexpr bool kHasTransport = !std::is_void<Transport>::value;

  PeerHaloExchange() = default;
  PeerHaloExchange(const PeerHaloExchange&) = delete;
  PeerHaloExchange& operator=(const PeerHaloExchange&) = delete;
  ~PeerHaloExchange() {
    if constexpr (kHasTransport) {
      if (!active()) return;
      Kokkos::fence();
      for (void* p : mapped_) Transport::close(p);
      Transport::event_destroy(event_);
      MPI_Comm_free(&graph_);
      // Freeing memory that another process still has mapped is undefined (CUDA IPC): free this rank's buffer
      // only once every rank has unmapped. While an exception unwinds (the job is about to abort), skip the
      // barrier and leave the buffer to the process's end.
      if (std::uncaught_exceptions() == 0) {
        MPI_Barrier(comm_);
        Transport::release(recv_base_);
      }
    }
  }

  // Collective over comm. Maps every destination's receive buffer: true when every rank could; false (and nothing
  // kept) if any rank cannot, unless `required` (then every rank throws).
  bool set_up(const CommPlan& plan, MPI_Comm comm, bool required) {
    if constexpr (!kHasTransport) {
      if (required)
        throw std::invalid_argument(std::string("halo exchange 'peer' needs a backend with a peer transport (") +
                                    Backend::name + " has none)");
      return false;
    } else {
      const auto neighbours = mpi::halo_neighbours(plan);
      int ok = Transport::supported() && mpi::on_my_node(neighbours, comm) ? 1 : 0, all_ok = 0;
      mpi::check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
      if (!all_ok) {
        if (required)
          throw std::runtime_error("halo exchange 'peer': some rank's neighbours are on another node or its device "
                                   "cannot share memory between processes");
        return false;
      }
      // each source learns: this rank's buffer handle, its halo (parity stride), where its block starts and its size
      struct Offer {
        typename Transport::Handle handle;
        long long halo, displ, count;
      };
      const int ranks = mpi::size(comm);
      recv_base_ = Transport::allocate(2 * static_cast<std::size_t>(plan.halo) * sizeof(Real));
      std::vector<Offer> offers(ranks), got(ranks);
      const auto handle = Transport::export_handle(recv_base_);
      for (std::size_t k = 0; k < plan.recv_ranks.size(); ++k)
        offers[plan.recv_ranks[k]] = Offer{handle, plan.halo, plan.recv_displs[k], plan.recv_counts[k]};
      mpi::check(MPI_Alltoall(offers.data(), sizeof(Offer), MPI_BYTE, got.data(), sizeof(Offer), MPI_BYTE, comm),
                 "MPI_Alltoall");
      ok = 1;
      for (std::size_t k = 0; k < plan.send_ranks.size(); ++k) {
        const Offer& o = got[plan.send_ranks[k]];
        if (o.count != plan.send_counts[k])
          throw std::logic_error("peer exchange: a neighbour expects another block size than this rank sends");
        void* p = Transport::open(o.handle);
        if (!p) {
          ok = 0;
          break;
        }
        mapped_.push_back(p);
        dst_.push_back(Destination{static_cast<Real*>(p) + o.displ, o.halo, plan.send_displs[k], plan.send_counts[k]});
      }
      mpi::check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
      if (!all_ok) {
        for (void* p : mapped_) Transport::close(p);
        mapped_.clear(), dst_.clear();
        MPI_Barrier(comm);  // nobody maps this rank's buffer any more
        Transport::release(recv_base_);
        recv_base_ = nullptr;
        if (required) throw std::runtime_error("halo exchange 'peer': the driver refused to map a neighbour's buffer");
        return false;
      }
      Real* base = static_cast<Real*>(recv_base_);
      for (int parity = 0; parity < 2; ++parity)
        recv_[parity] = Kokkos::View<const Real*, Mem>(
            Kokkos::View<const Real*, Mem, Kokkos::MemoryUnmanaged>(base + parity * plan.halo, plan.halo));
      event_ = Transport::event_create();
      token_out_.assign(neighbours.size(), 0);
      token_in_.assign(neighbours.size(), 0);
      comm_ = comm;
      graph_ = mpi::make_symmetric_graph(neighbours, comm);
      return true;
    }
  }
  bool active() const { return graph_ != MPI_COMM_NULL; }

  // After the pack kernel (stream order): step `step`'s blocks of `send` into the destinations' buffers of that
  // step's parity.
  void post(const Real* send, std::int64_t step) {
    if constexpr (kHasTransport) {
      const std::int64_t parity = step & 1;
      for (const auto& d : dst_)
        Transport::copy_async(d.ptr + parity * d.halo, send + d.send_displ,
                              static_cast<std::size_t>(d.count) * sizeof(Real));
      Transport::event_record(event_);
    }
  }
  // Blocks until this rank's copies have landed.
  void wait_copies() {
    if constexpr (kHasTransport) Transport::event_wait(event_);
  }
  // One token to and from every neighbour, after wait_copies(). A received token means: that neighbour's blocks of
  // this step are in this rank's buffer, and (the event follows the neighbour's previous unpack in stream order) the
  // neighbour has finished reading the buffer parity it will be sent next step.
  void exchange_tokens(std::int64_t step) {
    std::fill(token_out_.begin(), token_out_.end(), static_cast<long long>(step));
    mpi::check(MPI_Neighbor_alltoall(token_out_.data(), 1, MPI_LONG_LONG, token_in_.data(), 1, MPI_LONG_LONG, graph_),
               "MPI_Neighbor_alltoall");
    for (long long t : token_in_)
      if (t != step) throw std::logic_error("peer exchange: a neighbour is at another step");
  }
  // This rank's halo values of step `step` (after exchange_tokens).
  Kokkos::View<const Real*, Mem> received(std::int64_t step) const { return recv_[step & 1]; }

 private:
  struct Destination {
    Real* ptr;                  // this rank's block in the destination's buffer (parity 0)
    std::int64_t halo;          // the destination's halo: the parity stride
    std::int64_t send_displ, count;  // the block in this rank's send buffer
  };
  MPI_Comm comm_ = MPI_COMM_NULL, graph_ = MPI_COMM_NULL;
  void* recv_base_ = nullptr;  // 2 x halo values: step parity
  Kokkos::View<const Real*, Mem> recv_[2];
  std::vector<void*> mapped_;  // the destinations' buffers mapped here
  std::vector<Destination> dst_;
  void* event_ = nullptr;
  std::vector<long long> token_out_, token_in_;
};

}  // namespace kbrain
