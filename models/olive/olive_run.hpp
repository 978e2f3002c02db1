#pragma once
// The inferior-olive model as the runner sees it (models/runtime/model_runner.hpp): states the memory plan (which
// the runner checks before anything is allocated), builds the network on the backend (generated there for
// uniform/gaussian3d, timed as "generate"; uploaded otherwise), owns the stimulus and advances one step per call.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/inputs/stimulus.hpp"
#include "core/network/generate_network.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/olive/drivers/io_memory_plan.hpp"
#include "models/olive/gap/io_network_device.hpp"
#include "models/olive/cell/io_sampler.hpp"
#include "models/olive/drivers/io_simulation.hpp"
#include "models/olive/cell/io_step_ops.hpp"
#include "models/olive/drivers/io_step_bytes.hpp"
#include "models/olive/launch/gap_strategy.hpp"
#include "models/olive/olive_plan.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/model_runner.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain::olive {

// Spike detection is on when the run writes, keeps or the experiment records spikes.
inline bool detects_spikes(const OlivePlan& plan, const RunRequest& request) {
  return plan.record_spikes || request.write_spikes || request.keep_spikes;
}

// What `plan` will allocate on Backend in precision Real (models/olive/drivers/io_memory_plan.hpp).
template <class Backend, class Real>
olive::IoMemoryShape olive_memory_shape(const OlivePlan& plan, const RunRequest& request) {
  const auto& cfg = *plan.config;
  const GapNetwork& net = *plan.network;
  olive::IoMemoryShape s;
  s.cells = net.cells;
  s.real_bytes = sizeof(Real);
  s.spikes = detects_spikes(plan, request);
  s.per_cell_stimulus = cfg.stimulus.kind == "cell_file";
  if (plan.generator) {
    s.generated = true;
    s.junctions = plan.generator->junction_bound;
    s.per_junction_g = !plan.generator->spec.constant_conductance();
    s.symmetric = plan.generator->spec.symmetric;
    s.generator_table_bytes = plan.generator->table_bytes();
    s.tiled_lists = tiles_by_default(Backend::is_gpu, plan.generator->spec.kind == RandomNetworkSpec::Kind::Gaussian3d,
                                     s.junctions, s.cells);
  } else {
    s.junctions = net.junctions();
    s.per_junction_g = !net.conductance.empty();
    s.mesh_kernel = plan.use_mesh_kernel && net.is_mesh() && net.conductance.empty();
    s.host_network_copy = !Backend::is_gpu;
  }
  const auto trace_width = static_cast<std::int64_t>(plan.trace_vars.size() * plan.trace_cells.size());
  if (request.write_trace && trace_width > 0) s.sampled_values += trace_width * trace_sampler_capacity(trace_width);
  s.sampled_values += static_cast<std::int64_t>(request.probe_cells.size()) * kProbeSamplerCapacity;
  return s;
}

// For a mesh, what its size knob (--size: a side x side mesh) would fit: "; a mesh of S x S cells fits" ("" for
// other networks).
inline std::string mesh_that_fits(std::int64_t rows, std::int64_t cols, const olive::IoMemoryShape& shape,
                                  double available) {
  if (rows <= 0) return {};
  const auto side = largest_fitting(std::max(rows, cols), available, [&](std::int64_t k) {
    olive::IoMemoryShape s = shape;
    s.cells = k * k;
    s.junctions = 2 * (k * (k - 1) + (k - 1) * k + 2 * (k - 1) * (k - 1));  // 8 neighbours, fewer at the edges
    return double(olive::total_bytes(olive::plan_io_memory(s)));
  });
  return fmt::format("; a mesh of {} x {} cells fits", side, side);
}

template <class Backend, class Real>
class OliveRun {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using Sampler = olive::IoSampler<Exec, Real>;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;

  OliveRun(const OlivePlan& plan, const RunRequest& request, RunResult& res)
      : sim_(make_simulation(plan, res)),
        stimulus_(make_stimulus(plan.stimulus, plan.network->cells, plan.steps)) {
    if (detects_spikes(plan, request))
      sim_.enable_spikes(plan.config->record.spike_threshold);
    res.strategy = sim_.strategy_name();  // chosen, and its lists (tiled) built, by the constructor
    const auto shape = olive_memory_shape<Backend, Real>(plan, request);
    csr_ = !shape.mesh_kernel;
    per_junction_g_ = shape.per_junction_g;
    cells_ = shape.cells;
  }

  // The device bytes of models/olive/drivers/io_memory_plan.hpp, refused (exit 2) when they exceed the backend's
  // free memory; on the host the run adds a per-cell stimulus line and the samplers' copies.
  static MemoryStatement memory(const OlivePlan& plan, const RunRequest& request) {
    const auto shape = olive_memory_shape<Backend, Real>(plan, request);
    const auto hw = Backend::describe();
    try {
      olive::require_memory(shape, hw.free_memory_bytes, std::string(Backend::name) + " (" + hw.device + ")");
    } catch (const olive::MemoryPlanError& e) {
      throw NotEnoughMemory(plan.config->source.string() + ": [network]: " + e.what() +
                            mesh_that_fits(plan.network->mesh_rows, plan.network->mesh_cols, shape,
                                           double(hw.free_memory_bytes)));
    }
    MemoryStatement m;
    m.device_bytes = double(olive::total_bytes(olive::plan_io_memory(shape)));
    m.host_bytes = 8.0 * double(shape.sampled_values) + (shape.per_cell_stimulus ? 8.0 * double(shape.cells) : 0.0);
    return m;
  }

  std::int64_t steps_per_call() const { return 1; }
  void step() {
    const std::int64_t n = sim_.steps_done();
    const std::vector<double>* per_cell = stimulus_->has_per_cell() ? stimulus_->per_cell_current(n) : nullptr;
    sim_.step(stimulus_->uniform_current(n), per_cell);
  }
  void fence() { sim_.fence(); }
  std::int64_t steps_done() const { return sim_.steps_done(); }
  const auto& state() { return sim_.state(); }
  std::int64_t device_bytes() const { return sim_.device_bytes(); }
  bool spikes_due(std::int64_t, std::int64_t, bool) const { return sim_.spikes_due(); }
  SpikeEvents drain_spikes(bool final_drain) {
    if (sim_.spike_drain_interval() > 0 && (final_drain || sim_.spikes_due())) return sim_.drain_spikes();
    return {};
  }
  // The bytes the steps had to move (io_step_bytes.hpp) and their operations (io_step_ops.hpp), for compare's
  // achieved GB/s, GFLOP/s and flop/B.
  void finish(RunResult& res) {
    res.bytes_moved = double(sim_.steps_done()) * io_step_bytes(cells_, res.connections, sizeof(Real), csr_, per_junction_g_);
    res.flops = double(sim_.steps_done()) * io_step_flops(cells_, res.connections, sizeof(Real));
  }

  olive::IoSimulation<Backend, Real>& simulation() { return sim_; }

 private:
  static olive::IoSimulation<Backend, Real> make_simulation(const OlivePlan& plan, RunResult& res) {
    const GapKernelRequest gap_request = parse_gap_kernel_request(plan.gap_kernel);
    // the runner has checked memory() before this: nothing is allocated for a run that does not fit
    if (!plan.generator) {
      res.connections = double(plan.network->junctions());
      return olive::IoSimulation<Backend, Real>(plan.params, *plan.network, plan.g_cal, plan.use_mesh_kernel, gap_request);
    }
    Stopwatch generate;
    const auto net = generate_network<Exec, Real, Mem>(*plan.generator);  // fences
    res.generate_s = generate.seconds();
    res.connections = double(net.junctions());
    return olive::IoSimulation<Backend, Real>(
        plan.params,
        olive::DeviceGapNetwork<Real, Mem>::from_views(net.cells, net.offsets, net.sources, net.g, net.g_const,
                                                    net.lattice_side),
        plan.g_cal, gap_request);
  }

  olive::IoSimulation<Backend, Real> sim_;
  std::unique_ptr<Stimulus> stimulus_;
  bool csr_ = true, per_junction_g_ = false;
  std::int64_t cells_ = 0;
};

}  // namespace kbrain::olive
