// The step end (adex_reduce.hpp) alone on CUDA: the product's one launch (StepEndTeams: the columns' currents, a team
// per row block whose threads add its chunks' last tree levels, the block sums, m̄ by the last team). For each N: the
// probe's state (every row and column firing), one product pass to fill the sum groups, then for teams of the
// product's size, of 32 and of 512 threads: µs per step end alone and after a pass (median of 5 runs of 20,
// light-weight launches as the product's), and the chunk sums, block sums and m̄ against StepEnd and StepMean's (a
// thread per chunk and one team: the tree's definition; they must be equal). The
// two launches it replaced are in 9473d6b's probe (bench/README.md, "step end"). Built on demand:
// `cmake --build build/cuda --target adex_step_end_probe`.
//   adex_step_end_probe N...
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/lab/adex_probe_support.hpp"
#include "models/adex_costa/adex_reduce.hpp"
#include "models/adex_costa/adex_kernels.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"

namespace {

using namespace kbrain::adex;
using namespace kbrain::adex::probe;

std::vector<double> sum_bits(const AdexState<float, Mem>& st) {
  std::vector<double> out;
  for (const auto& v : {st.chunk_sum, st.block_sum, st.mbar}) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    out.insert(out.end(), h.data(), h.data() + h.size());
  }
  for (const auto& v : {st.chunk_count, st.block_count}) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    for (std::size_t k = 0; k < h.size(); ++k) out.push_back(double(h(k)));
  }
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
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  using Mean = StepMean<float, Mem, Exec>;
  const StepEnd<float, Mem> by_thread{st, true, true};
  Kokkos::parallel_for("step_end_threads", Range(0, by_thread.size()), by_thread);
  const Mean mean{st, true, Mean::team_size_for(st, !host), Mean::kPiece};
  Kokkos::parallel_for("step_mean", mean.policy(), mean);
  Kokkos::fence();
  const std::vector<double> reference = sum_bits(st);
  const auto pass = [&] {
    launch_gpu_synapse_pass(Exec(), "adex_pass", SynapsePass<float, Mem>{st, p, 0, n, true},
                            ConnectionRule{Connectivity::All, Parity::PostEven}, st.blocks);
  };
  // The product's team size first, then others (the rounds then differ; the bits may not).
  for (const int team_size : {StepEndTeams<float, Mem, Exec>::kTeamSize, 32, 512}) {
    const StepEndTeams<float, Mem, Exec> end{st, true, true, host ? 1 : team_size};
    const auto launch_end = [&] { Kokkos::parallel_for("step_end", kbrain::kx::light_weight(end.policy()), end); };
    Kokkos::deep_copy(st.chunk_sum, -1.0);
    Kokkos::deep_copy(st.block_sum, -1.0);
    Kokkos::deep_copy(st.mbar, -1.0);
    launch_end();
    Kokkos::fence();
    const bool same = same_bits(sum_bits(st), reference);
    std::printf("N %lld: %lld blocks x %lld chunks, teams of %d: step end %.2f us, pass + step end %.2f us, sums and "
                "m-bar as StepEnd + StepMean: %s\n",
                static_cast<long long>(n), static_cast<long long>(st.blocks), static_cast<long long>(st.chunks),
                end.team_size, median_s(launch_end) * 1e6, median_s([&] { pass(); launch_end(); }) * 1e6,
                same ? "yes" : "NO");
  }
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
