#include "experiments/program/io_mpi_dispatch.hpp"

#include "backends/registry.hpp"
#include "experiments/program/io_mpi_runner.hpp"

namespace kbrain {

IoMpiRunResult run_io_mpi_on(const std::string& backend, Precision precision, const olive::OlivePlan& plan,
                             const RunRequest& request,
                             PartitionChoice choice, bool phase_timing, const std::string& exchange) {
  const HaloExchange how = parse_halo_exchange(exchange);
  IoMpiRunResult result;
  with_backend(backend, [&](auto tag) {
    using B = typename decltype(tag)::type;
    result = precision == Precision::Float ? run_io_mpi<B, float>(plan, request, choice, phase_timing, how, MPI_COMM_WORLD)
                                           : run_io_mpi<B, double>(plan, request, choice, phase_timing, how, MPI_COMM_WORLD);
  });
  return result;
}

}  // namespace kbrain
