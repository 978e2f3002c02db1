// Test support: runs an adex_costa experiment on one backend and writes every variable at every step (or every k
// steps) in the dump format that tests/neofytou/check_reference.py and brian2_savings.py read (README.md there):
//   case.json   the network, the run and the parameters
//   dump.csv    step,var,index,value — step -1: the connection flags and the initial state
// Usage: kbrain_adex_dump EXPERIMENT OUT_DIR [--backend B] [--precision float|double] [--steps N] [--every K]
//                         [--synapses i,j,...]  (synapse ids to write; default all connected)
//                         [--vars V,I,U,...]    (variables to write; default all; the spike flags always)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <Kokkos_Core.hpp>

#include "backends/enabled_backends.hpp"
#include "core/type_list.hpp"
#include "models/adex_costa/adex_model.hpp"
#include "models/registry.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::adex;

struct Options {
  std::string backend = "serial", precision = "double";
  std::int64_t steps = 0, every = 1;
  std::vector<std::int64_t> synapses;
  std::vector<std::string> vars;  // empty: all
  bool wants(int v) const {
    if (vars.empty()) return true;
    for (const auto& name : vars)
      if (name == kAdexVarNames[v]) return true;
    return false;
  }
};

template <class HostReader>
void write_state(std::FILE* out, std::int64_t step, const HostReader& h, const AdexPlan& plan,
                 const std::vector<std::int64_t>& synapses, const Options& o) {
  if (step >= 0) {
    for (std::int64_t i = 0; i < plan.n_pre; ++i) fmt::print(out, "{},pre_spike,{},{}\n", step, i, h.st.pre_flag(i));
    const bool post = plan.post_events != PostEvents::None;
    for (std::int64_t j = 0; j < plan.n_post; ++j)
      fmt::print(out, "{},post_spike,{},{}\n", step, j, post ? h.st.post_flag(j) : 0);
  }
  for (int v = V_M; v <= I_SYN; ++v)
    if (o.wants(v))
      for (std::int64_t j = 0; j < plan.n_post; ++j) fmt::print(out, "{},{},{},{:.17g}\n", step, kAdexVarNames[v], j, double(h(v, j)));
  const int order[] = {SYN_FFP, SYN_FBP, SYN_FBN, SYN_R, SYN_USE, SYN_U, SYN_A};
  for (int v : order)
    if (o.wants(v))
      for (auto id : synapses) fmt::print(out, "{},{},{},{:.17g}\n", step, kAdexVarNames[v], id, double(h(v, id)));
}

template <class Backend, class Real>
void dump(const ExperimentConfig& cfg, const std::filesystem::path& dir, const Options& o) {
  AdexPlan plan = make_adex_plan(cfg, PlanRequest{0, 0, o.steps});
  std::vector<std::int64_t> synapses = o.synapses;
  if (synapses.empty())
    for (std::int64_t id = 0; id < plan.synapse_slots(); ++id)
      if (plan.connected(id / plan.n_post, id % plan.n_post)) synapses.push_back(id);
  std::filesystem::create_directories(dir);
  {
    std::ofstream c(dir / "case.json");
    const std::string rule = plan.connectivity == Connectivity::All    ? "all"
                             : plan.connectivity == Connectivity::Half ? to_string(plan.parity)
                                                                       : "";
    std::string phases;  // poisson_gaussian: [[position, seconds], ...]
    std::int64_t listed = 0;  // the last phase lasts to the end unless phase_steps lists it
    for (auto s : plan.phase_steps) listed += s;
    for (std::size_t k = 0; k < plan.positions.size(); ++k) {
      const std::int64_t steps = k < plan.phase_steps.size() ? plan.phase_steps[k] : plan.steps - listed;
      phases += fmt::format("{}[{}, {}]", k ? ", " : "", plan.positions[k], double(steps) * plan.dt_ms / 1000.0);
    }
    c << fmt::format("{{\"architecture\": \"{}\", \"n_pre\": {}, \"n_post\": {}, \"steps\": {}, \"dt\": {}, "
                     "\"every\": {}, \"post_events\": \"{}\", \"pattern\": \"{}\", \"precision\": \"{}\", "
                     "\"backend\": \"{}\", ",
                     plan.mxm ? "mxm" : "nxm", plan.n_pre, plan.n_post, plan.steps, plan.dt_ms, o.every,
                     to_string(plan.post_events), to_string(plan.pattern), o.precision, Backend::name);
    if (!rule.empty()) c << fmt::format("\"connectivity\": \"{}\", ", rule);
    if (plan.pattern == Pattern::PoissonGaussian) c << "\"phases\": [" << phases << "], ";
    c << "\"parameters\": {";
    const auto infos = adex_parameter_table().infos(plan.params);
    for (std::size_t k = 0; k < infos.size(); ++k)
      c << fmt::format("{}\"{}\": {:.17g}", k ? ", " : "", infos[k].name, infos[k].default_value);
    c << "}}\n";
  }
  std::FILE* out = std::fopen((dir / "dump.csv").c_str(), "w");
  if (!out) throw std::runtime_error("cannot write " + (dir / "dump.csv").string());
  fmt::print(out, "step,var,index,value\n");
  RunRequest request;
  RunResult res;
  AdexSimulation<Backend, Real> sim(plan, request, res);
  auto initial = host_copy(sim.state());
  for (std::int64_t id = 0; id < plan.synapse_slots(); ++id)
    fmt::print(out, "-1,conn,{},{}\n", id, int(initial.st.conn(initial.st.flag_slot(id / plan.n_post, id % plan.n_post))));
  initial.t = 0;
  write_state(out, -1, initial, plan, synapses, o);
  for (std::int64_t n = 0; n < plan.steps; ++n) {
    sim.step();
    if ((n + 1) % o.every == 0 || n + 1 == plan.steps) write_state(out, n, host_copy(sim.state()), plan, synapses, o);
  }
  std::fclose(out);
}

std::vector<std::int64_t> parse_ids(const std::string& text) {
  std::vector<std::int64_t> ids;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) ids.push_back(std::stoll(item));
  return ids;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s EXPERIMENT OUT_DIR [--backend B] [--precision P] [--steps N] [--every K] [--synapses ids]\n", argv[0]);
    return 2;
  }
  Options o;
  for (int k = 3; k + 1 < argc; k += 2) {
    const std::string key = argv[k], value = argv[k + 1];
    if (key == "--backend") o.backend = value;
    else if (key == "--precision") o.precision = value;
    else if (key == "--steps") o.steps = std::stoll(value);
    else if (key == "--every") o.every = std::stoll(value);
    else if (key == "--synapses") o.synapses = parse_ids(value);
    else if (key == "--vars") {
      std::stringstream in(value);
      for (std::string item; std::getline(in, item, ',');) o.vars.push_back(item);
    }
    else { std::fprintf(stderr, "unknown option %s\n", key.c_str()); return 2; }
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const ExperimentConfig cfg = load_model_experiment(argv[1]);
    bool found = false;
    for_each_type<EnabledBackends>([&](auto tag) {
      using B = typename decltype(tag)::type;
      if (o.backend != B::name) return;
      found = true;
      if (o.precision == "float") dump<B, float>(cfg, argv[2], o);
      else dump<B, double>(cfg, argv[2], o);
    });
    if (!found) { std::fprintf(stderr, "backend %s is not compiled in\n", o.backend.c_str()); return 2; }
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
