// The step end's chunk sums (adex_reduce.hpp) alone on CUDA: the product's StepEndTeams (the lanes' tree, a chunk a
// team of 32 threads, its currents off) against StepEndOrdered (adex_step_end_ordered.hpp: the chunk copied to
// scratch and added by one thread in index order, as before the tree). For each N: the probe's state (every row and
// column firing), one product pass to fill the partial sums, then µs per launch (median of 5 runs of 20 launches,
// light-weight as the product launches), and the chunk sums' bits against StepEnd's (a thread per chunk, the tree's
// definition: they must be equal). Built on demand: `cmake --build build/cuda --target adex_step_end_probe`.
//   adex_step_end_probe N...
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/lab/adex_probe_support.hpp"
#include "bench/lab/adex_step_end_ordered.hpp"
#include "models/adex_costa/adex_kernels.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"

namespace {

using namespace kbrain::adex;
using namespace kbrain::adex::probe;

std::vector<double> chunk_bits(const AdexState<float, Mem>& st) {
  auto sums = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.chunk_sum);
  auto counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.chunk_count);
  std::vector<double> out(sums.data(), sums.data() + sums.size());
  for (std::size_t k = 0; k < counts.size(); ++k) out.push_back(double(counts(k)));
  return out;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void run(std::int64_t n) {
  AdexState<float, Mem> st;
  st.allocate(n, 0, n, n, true);
  fill(st, true);
  const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
  launch_gpu_synapse_pass(Exec(), "adex_pass", SynapsePass<float, Mem>{st, p, 0, n, true},
                          ConnectionRule{Connectivity::All, Parity::PostEven}, st.blocks);
  const int team = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible ? 1 : kChunkLanes;
  const StepEnd<float, Mem> by_thread{st, false, true};
  Kokkos::parallel_for("step_end_threads", Range(0, by_thread.size()), by_thread);
  Kokkos::fence();
  const std::vector<double> reference = chunk_bits(st);
  const StepEndTeams<float, Mem, Exec> product{st, false, true, team};
  const auto launch_product = [&] { Kokkos::parallel_for("step_end", kbrain::kx::light_weight(product.policy()), product); };
  Kokkos::deep_copy(st.chunk_sum, -1.0);
  launch_product();
  Kokkos::fence();
  const bool same = same_bits(chunk_bits(st), reference);
  const probe::StepEndOrdered<float, Mem, Exec> ordered{st, team};
  const auto launch_ordered = [&] { Kokkos::parallel_for("step_end_ordered", kbrain::kx::light_weight(ordered.policy()), ordered); };
  std::printf("N %lld: %lld chunks; product (lanes' tree): %.2f us, bits as a thread per chunk: %s\n",
              static_cast<long long>(n), static_cast<long long>(st.blocks * st.chunks),
              median_s(launch_product) * 1e6, same ? "yes" : "NO");
  std::printf("N %lld: one thread adding in order (before): %.2f us\n", static_cast<long long>(n),
              median_s(launch_ordered) * 1e6);
  std::printf("N %lld: product again: %.2f us\n", static_cast<long long>(n), median_s(launch_product) * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    for (int k = 1; k < argc; ++k) run(std::atoll(argv[k]));
    if (argc < 2) run(10000);
  }
  Kokkos::finalize();
  return 0;
}
