// kbrain_mpi_pingpong (MPI builds): the latency and bandwidth of the halo exchange's transport, for the model in
// docs/mpi.md. Ranks 0 and 1 bounce messages of 8 B ... 64 MiB; for each size it prints the one-way time of
//   host    : host buffers straight through MPI
//   staged  : device buffer -> host staging buffer (deep_copy) -> MPI -> host staging buffer -> device buffer
//             (kbrain's path when the MPI library is not CUDA-aware); the staging buffer is in the default backend's
//             staging_memory_space (page-locked for CUDA), as in the IO simulation; on host-only builds the copies
//             are host copies
// (median of the round trips / 2) as CSV on rank 0: bytes,host_us,staged_us. Usage: mpirun -n 2 kbrain_mpi_pingpong [repetitions]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "backends/enabled_backends.hpp"
#include <mpi.h>

// The enabled backend that runs on Kokkos' default execution space (its traits name the staging memory).
template <class Tuple>
struct DefaultBackend;
template <>
struct DefaultBackend<std::tuple<>> {
  using type = void;
};
template <class B, class... Bs>
struct DefaultBackend<std::tuple<B, Bs...>> {
  using type = std::conditional_t<std::is_same<typename B::execution_space, Kokkos::DefaultExecutionSpace>::value, B,
                                  typename DefaultBackend<std::tuple<Bs...>>::type>;
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int reps = argc > 1 ? std::atoi(argv[1]) : 50;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    if (size < 2) {
      if (rank == 0) std::fprintf(stderr, "kbrain_mpi_pingpong needs 2 ranks\n");
    } else if (rank < 2) {
      const int peer = 1 - rank;
      const std::size_t max_bytes = std::size_t(64) << 20;
      Kokkos::View<char*> dev("pingpong_dev", max_bytes);
      Kokkos::View<char*, typename DefaultBackend<kbrain::EnabledBackends>::type::staging_memory_space> host(
          "pingpong_staging", max_bytes);
      std::vector<char> plain(max_bytes, 1);
      if (rank == 0) std::printf("bytes,host_us,staged_us\n");
      for (std::size_t bytes = 8; bytes <= max_bytes; bytes *= 4) {
        const int n = static_cast<int>(bytes);
        auto sub = Kokkos::subview(dev, std::make_pair(std::size_t(0), bytes));
        auto hsub = Kokkos::subview(host, std::make_pair(std::size_t(0), bytes));
        const int r = bytes >= (std::size_t(4) << 20) ? std::max(3, reps / 10) : reps;
        double t[2] = {0, 0};
        for (int mode = 0; mode < 2; ++mode) {
          MPI_Barrier(MPI_COMM_WORLD);
          std::vector<double> trips;
          for (int k = 0; k < r; ++k) {
            const double t0 = MPI_Wtime();
            if (rank == 0) {
              if (mode == 1) Kokkos::deep_copy(hsub, sub);
              MPI_Send(mode ? hsub.data() : plain.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
              MPI_Recv(mode ? hsub.data() : plain.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
              if (mode == 1) Kokkos::deep_copy(sub, hsub);
            } else {
              MPI_Recv(mode ? hsub.data() : plain.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
              if (mode == 1) Kokkos::deep_copy(sub, hsub), Kokkos::deep_copy(hsub, sub);
              MPI_Send(mode ? hsub.data() : plain.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            }
            trips.push_back(MPI_Wtime() - t0);
          }
          // one way, median round trip / 2 (robust against other load on the machine)
          std::nth_element(trips.begin(), trips.begin() + trips.size() / 2, trips.end());
          t[mode] = trips[trips.size() / 2] / 2.0 * 1e6;
        }
        if (rank == 0) std::printf("%zu,%.3f,%.3f\n", bytes, t[0], t[1]);
      }
    }
  }
  MPI_Finalize();
  return 0;
}
