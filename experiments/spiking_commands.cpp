// `kbrain run` / `kbrain compare` for spiking networks (model.kind = lif | izhikevich | hh); cmd_run.cpp and
// cmd_compare.cpp hand over here after loading the experiment.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "core/recorders/run_manifest.hpp"
#include "core/report/spiking_report.hpp"
#include "experiments/backend_facts.hpp"
#include "experiments/build_info.hpp"
#include "experiments/spiking_commands.hpp"
#include "experiments/spiking_run_plan.hpp"
#include "experiments/report_files.hpp"

namespace kbrain {

namespace {

void print_populations(const SpikingRunResult& r) {
  for (const auto& p : r.populations)
    fmt::print("  {:<4} {:>7} neurons  {:8.3f} Hz  ISI CV {:.3f}\n", p.name, p.neurons, p.rate_hz, p.isi_cv);
}

double rel_pct(double a, double ref) {
  if (!std::isfinite(a) || !std::isfinite(ref)) return std::numeric_limits<double>::quiet_NaN();
  return ref != 0 ? 100.0 * std::fabs(a - ref) / std::fabs(ref) : (a == 0 ? 0.0 : 100.0);
}

}  // namespace

int cmd_run_spiking(const ExperimentConfig& cfg, const std::string& backend, Precision precision,
                    std::int64_t steps_override, const std::filesystem::path& out_dir) {
  SpikingRunPlan plan = make_spiking_plan(cfg, 0, steps_override);
  plan.out_dir = out_dir;
  std::filesystem::create_directories(out_dir);
  const auto& net = plan.setup->network;
  const double dt = plan.setup->params.dt;
  RunManifest m;
  m.fields = {{"experiment", cfg.name}, {"source", cfg.source.string()}, {"model", cfg.model},
              {"parameter_set", cfg.spiking.parameter_set},
              {"integrator", point::to_string(plan.setup->params.integrator)}, {"backend", backend},
              {"precision", to_string(precision)}, {"hardware", backend_facts(backend).description}, {"commit", git_commit()},
              {"date", today_iso()}, {"command", command_line()}, {"kokkos", kokkos_description()}};
  if (plan.setup->params.model == point::NeuronModel::CortexHh) {
    const auto& p = plan.setup->params;
    m.fields["methods"] = fmt::format("{}{}{}{}", point::to_string(p.integrator), p.substeps() > 1 ? "+eai" : "",
                                      p.lut ? "+lut" : "", p.tpm ? "+tpm" : "");
  }
  m.numbers = {{"neurons", double(net.neurons)}, {"synapses", double(net.synapses())},
               {"steps", double(plan.steps)}, {"dt_ms", dt}, {"seed", double(plan.setup->seed)}};
  write_manifest(out_dir / "run.json", m);

  const SpikingRunResult r = run_spiking_on(backend, precision, plan);
  const double bio_s = double(r.steps) * dt / 1000.0;
  m.numbers["network_s"] = plan.network_build_s;
  m.numbers["setup_s"] = r.setup_s;
  m.numbers["simulate_s"] = r.simulate_s;
  m.numbers["output_s"] = r.output_s;
  m.numbers["wall_s_per_bio_s"] = r.simulate_s / bio_s;
  m.numbers["spikes"] = double(r.spikes);
  m.numbers["synaptic_events_per_s"] = r.synaptic_events / r.simulate_s;
  for (const auto& p : r.populations) {
    m.numbers["rate_hz_" + p.name] = p.rate_hz;
    m.numbers["isi_cv_" + p.name] = p.isi_cv;
  }
  m.complete = true;
  write_manifest(out_dir / "run.json", m);

  fmt::print("{}: {} ({}), {} neurons, {} synapses, {} steps of {} ms on {} ({}), {}\n", cfg.name, cfg.model,
             cfg.spiking.parameter_set, net.neurons, net.synapses(), r.steps, dt, backend, to_string(precision),
             backend_facts(backend).description);
  fmt::print("  network {:.3f} s, setup {:.3f} s, simulate {:.3f} s ({:.3f} s per bio s, {:.3e} synaptic events/s), "
             "output {:.3f} s\n",
             plan.network_build_s, r.setup_s, r.simulate_s, r.simulate_s / bio_s, r.synaptic_events / r.simulate_s,
             r.output_s);
  print_populations(r);
  fmt::print("  spikes: {}; output in {}\n", r.spikes, out_dir.string());
  return 0;
}

int cmd_compare_spiking(const ExperimentConfig& cfg, const std::vector<std::string>& backends,
                        const std::vector<Precision>& precisions, std::vector<std::int64_t> sizes,
                        std::int64_t steps_override, std::int64_t budget, const std::filesystem::path& out_dir) {
  if (sizes.empty()) sizes.push_back(0);
  const std::string ref_backend = reference_backend(backends);
  SpikingComparisonReport report;
  report.experiment = cfg.name;
  report.model = cfg.model + "/" + cfg.spiking.parameter_set;
  report.date = today_iso();
  report.commit = git_commit();
  report.command = command_line();
  report.kokkos = kokkos_description();
  for (const auto& b : backends) report.hardware.emplace_back(b, backend_facts(b).description);

  for (auto size : sizes) {
    SpikingRunPlan plan = make_spiking_plan(cfg, size, steps_override);
    plan.progress = true;
    const auto& net = plan.setup->network;
    const double dt = plan.setup->params.dt;
    report.dt_ms = dt;
    auto steps_for = [&](const std::string& b) {
      return budget_steps(backend_facts(b), net.neurons, plan.steps, budget);
    };
    fmt::print(stderr, "[compare] {} neurons, {} synapses\n", net.neurons, net.synapses());
    SpikingRunPlan ref_plan = plan;
    ref_plan.steps = steps_for(ref_backend);
    const SpikingRunResult ref = run_spiking_on(ref_backend, Precision::Double, ref_plan);
    for (const auto& b : backends)
      for (auto prec : precisions) {
        SpikingRunResult r;
        if (b == ref_backend && prec == Precision::Double) {
          r = ref;
        } else {
          SpikingRunPlan p = plan;
          p.steps = steps_for(b);
          r = run_spiking_on(b, prec, p);
        }
        SpikingComparisonRow row;
        row.neurons = net.neurons;
        row.synapses = net.synapses();
        row.backend = b;
        row.precision = to_string(prec);
        row.steps = r.steps;
        row.steps_requested = plan.steps;
        row.setup_s = r.setup_s;
        row.simulate_s = r.simulate_s;
        row.wall_s_per_bio_s = r.simulate_s / (double(r.steps) * dt / 1000.0);
        row.synaptic_events_per_s = r.synaptic_events / r.simulate_s;
        for (const auto& p : r.populations) row.populations.push_back({p.name, p.rate_hz, p.isi_cv});
        if (r.steps == ref.steps && !(b == ref_backend && prec == Precision::Double)) {
          row.identical_spikes = r.events == ref.events ? "yes" : "no";
          row.max_rate_diff_pct = row.max_cv_diff_pct = 0;
          for (std::size_t k = 0; k < r.populations.size() && k < ref.populations.size(); ++k) {
            row.max_rate_diff_pct = std::fmax(row.max_rate_diff_pct,
                                              rel_pct(r.populations[k].rate_hz, ref.populations[k].rate_hz));
            row.max_cv_diff_pct = std::fmax(row.max_cv_diff_pct,
                                            rel_pct(r.populations[k].isi_cv, ref.populations[k].isi_cv));
          }
        }
        if (r.steps < plan.steps) row.note = "fewer steps (max_slow_neuron_steps)";
        if (ref_backend != "serial") row.note += (row.note.empty() ? "" : "; ") + ("reference: " + ref_backend);
        report.rows.push_back(row);
        fmt::print(stderr, "[compare]   {:<7} {:<6} {:>8} steps  {:.4g} s per bio s\n", b, to_string(prec), r.steps,
                   row.wall_s_per_bio_s);
        save_comparison(out_dir, report, false);
      }
  }
  publish_comparison(out_dir, report);
  return 0;
}

}  // namespace kbrain
