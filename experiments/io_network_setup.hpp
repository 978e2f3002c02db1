#pragma once
// The runner's network step for one backend: memory planning before any allocation, then the simulation with its
// network — generated on the backend's execution space for uniform/gaussian3d (timed as phase "generate", no host
// round trip), uploaded from the host otherwise.
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/network/generate_network.hpp"
#include "core/timing/stopwatch.hpp"
#include "experiments/io_run_plan.hpp"
#include "models/olive/drivers/io_memory_plan.hpp"
#include "models/olive/gap/io_network_device.hpp"
#include "models/olive/drivers/io_simulation.hpp"

namespace kbrain {

// What `plan` will allocate on Backend in precision Real (see models/olive/drivers/io_memory_plan.hpp).
template <class Backend, class Real>
olive::IoMemoryShape io_memory_shape(const IoRunPlan& plan) {
  const auto& cfg = *plan.config;
  const GapNetwork& net = *plan.network;
  olive::IoMemoryShape s;
  s.cells = net.cells;
  s.real_bytes = sizeof(Real);
  s.spikes = plan.count_spikes || plan.write_spikes;
  s.per_cell_stimulus = cfg.stimulus.kind == "cell_file";
  if (plan.generator) {
    s.generated = true;
    s.junctions = plan.generator->junction_bound;
    s.per_junction_g = !plan.generator->spec.constant_conductance();
    s.symmetric = plan.generator->spec.symmetric;
    s.generator_table_bytes = plan.generator->table_bytes();
    s.tiled_lists = olive::tiles_by_default(Backend::is_gpu,
                                            plan.generator->spec.kind == RandomNetworkSpec::Kind::Gaussian3d,
                                            s.junctions, s.cells);
  } else {
    s.junctions = net.junctions();
    s.per_junction_g = !net.conductance.empty();
    s.mesh_kernel = plan.use_mesh_kernel && net.is_mesh() && net.conductance.empty();
    s.host_network_copy = !Backend::is_gpu;
  }
  const auto trace_width = static_cast<std::int64_t>(plan.trace_vars.size() * plan.trace_cells.size());
  if (plan.write_trace && trace_width > 0)
    s.sampled_values += trace_width * std::clamp<std::int64_t>((8 << 20) / trace_width, 1, 4096);
  s.sampled_values += static_cast<std::int64_t>(plan.probe_cells.size()) * 1024;
  return s;
}

// Refuses (olive::MemoryPlanError) when the run cannot fit in the backend's free memory.
template <class Backend, class Real>
void check_io_memory(const IoRunPlan& plan) {
  const auto hw = Backend::describe();
  olive::require_memory(io_memory_shape<Backend, Real>(plan), hw.free_memory_bytes,
                     std::string(Backend::name) + " (" + hw.device + ")");
}

// The simulation of `plan` on Backend (its gap strategy chosen for plan.gap_kernel, built here: the tiled lists are
// part of the setup phase); sets res.generate_s and res.junctions.
template <class Backend, class Real>
olive::IoSimulation<Backend, Real> make_io_simulation(const IoRunPlan& plan, IoRunResult& res) {
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  const olive::GapKernelRequest request = olive::parse_gap_kernel_request(plan.gap_kernel);
  if (!plan.generator) {
    res.junctions = plan.network->junctions();
    return olive::IoSimulation<Backend, Real>(plan.params, *plan.network, plan.g_cal, plan.use_mesh_kernel, request);
  }
  Stopwatch generate;
  const auto net = generate_network<Exec, Real, Mem>(*plan.generator);  // fences
  res.generate_s = generate.seconds();
  res.junctions = net.junctions();
  return olive::IoSimulation<Backend, Real>(
      plan.params,
      olive::DeviceGapNetwork<Real, Mem>::from_views(net.cells, net.offsets, net.sources, net.g, net.g_const,
                                                      net.lattice_side),
      plan.g_cal, request);
}

}  // namespace kbrain
