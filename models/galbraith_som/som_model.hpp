#pragma once
// Galbraith 2010's self-organising map as a unit (models/registry.hpp lists it): kind "galbraith_som", its schema
// (som_schema.cpp), plan and training picture (som_plan.cpp), kernels (som_kernels.hpp) and simulation
// (som_simulation.hpp, one training input per step). Compare columns: the neighbourhood, µs per training step,
// whether the BMU sequence equals the reference run's, and the largest difference of the probed neurons' final
// weights from the reference run's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/report/comparison_table.hpp"
#include "models/galbraith_som/som_plan.hpp"
#include "models/galbraith_som/som_schema.hpp"
#include "models/galbraith_som/som_simulation.hpp"

namespace kbrain::galbraith {

struct GalbraithSomModel {
  using Plan = SomPlan;
  template <class Backend, class Real>
  using Simulation = SomSimulation<Backend, Real>;
  static constexpr const char* kCells = "neurons";
  static constexpr const char* kConnections = "weights";
  static constexpr const char* kStrategy = "step_strategy";
  static constexpr bool kSpikeStatistics = false;
  // A step is one training input, not a dt of simulated time: compare shows no per-cell-step or per-bio-s columns.
  static constexpr bool kBiologicalTime = false;
  static constexpr bool kStatesBytesMoved = true;  // SomSimulation::finish: compare shows GB/s, GFLOP/s and flop/B
  static bool states_flops(const SomPlan&) { return true; }
  // The runner never samples during the loop (a sample is one more launch per step, and per-step launches are the
  // cost being measured); the simulation reports the probe neurons' final weights itself (SomSimulation::finish).
  static constexpr std::int64_t kProbeEvery = std::numeric_limits<std::int64_t>::max();

  static std::vector<ModelSchema> schemas() { return {som_schema()}; }
  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) { return make_som_plan(cfg, r); }

  static std::vector<std::int64_t> probe_cells(const Plan& p) {
    const std::int64_t wanted = std::min<std::int64_t>(p.neurons(), std::max<std::int64_t>(16, p.config->compare.probe_cells));
    std::vector<std::int64_t> ids;
    for (std::int64_t k = 0; k < wanted; ++k) ids.push_back(k * p.neurons() / wanted);
    return ids;
  }

  static std::vector<std::pair<std::string, std::string>> describe(const Plan& p) {
    return {{"grid", fmt::format("{} x {}; neuron n at (n mod W, n / W)", p.width, p.height)},
            {"neighbourhood", p.neighbourhood == Neighbourhood::Window
                                  ? "window: |u|, |v| <= 2 (the experiment text's width 5)"
                                  : "disc: u^2 + v^2 < r^2, r^2 = 256, then (sqrt(r^2) - 1)^2 after every full pass "
                                    "(floor 1; the appendix code)"},
            {"edges", "no wrap-around: neighbours beyond the grid's edges do not exist"},
            {"alpha", fmt::format("{}", p.alpha)},
            {"initial_weights", "channel c of neuron n = floor(256 u) / 255, u = counter_uniform(som.seed, n, c) (the "
                        "study's (rand() % 256) / 255)"},
            {"input", fmt::format("{} ({} x {} pixels)", p.input_label, p.input->width, p.input->height)},
            {"input_order", "one pixel per step in BMP file order (bottom row first, left to right), for every "
                            "format; p = (R, G, B) / 255; after the last pixel the next pass starts again"},
            {"generated_image", "when no image is given: two octaves of value noise (8 and 32 cells across the "
                                "longer side, weights 0.75 and 0.25, smoothstep blend), lattice colours from "
                                "counter_uniform(input.seed, lattice point, channel); the thesis' photograph may not "
                                "be redistributed"},
            {"bmu", "lexicographic (distance, index) minimum: ties go to the lowest index on every backend (the "
                    "study's cublasIsamin off-by-one is not reproduced)"},
            {"step", fmt::format("GPUs: one parallel_reduce per input (the previous input's update, then the "
                                 "distance to this input; the last update by one more pass). CPUs: chunks of up "
                                 "to {} inputs with the same result (a pass for every input's (distance, index) "
                                 "minimum per tile of {}x{} neurons at the chunk's first weights; one team then "
                                 "takes the inputs in order, recomputing only the tiles an earlier input updated)",
                                 kSomChunkInputs, som_tile_side(p.width, p.height), som_tile_side(p.width, p.height))},
            {"pictures", "som_weights_step_<n>.png at simulation.checkpoints, som_weights_final.png at the end; "
                         "grid row 0 at the bottom, channel round(255 w)"},
            {"training_steps", fmt::format("{} ({:.3g} passes over the image)", p.steps, double(p.steps) / double(p.pixels()))}};
  }

  static std::vector<ReportColumn> agreement_columns(const Plan&) {
    return {{"neighbourhood", "neighbourhood", "text"},
            {"us_per_step", "µs/step", "sig3"},
            {"bmus_match", "BMUs = reference", "text"},
            {"max_abs_dw", "max |Δw|", "sig3"}};
  }
  static std::vector<ReportValue> agreement(const Plan& p, const RunRequest&, const RunResult& r,
                                            const RunResult& ref, bool) {
    const bool same_steps = r.steps == ref.steps;
    double max_abs = 0;
    const std::size_t n = std::min(r.probes.size(), ref.probes.size());
    for (std::size_t k = 0; k < n; ++k) max_abs = std::max(max_abs, std::fabs(r.probes[k] - ref.probes[k]));
    return {ReportValue::str(to_string(p.neighbourhood)),
            ReportValue::num(r.simulate_s * 1e6 / double(std::max<std::int64_t>(1, r.steps))),
            same_steps ? ReportValue::str(r.value("bmu_digest", -1) == ref.value("bmu_digest", -2) ? "yes" : "NO")
                       : ReportValue::missing(),
            same_steps && n > 0 ? ReportValue::num(max_abs) : ReportValue::missing()};
  }
};

}  // namespace kbrain::galbraith
