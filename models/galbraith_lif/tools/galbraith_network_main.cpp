// kbrain_galbraith_network EXP OUT.bin [--size N] [--synapses S]: writes the network an experiment builds (ring,
// full, random with its seed, or a file read back) as the study's connections.bin, so that one generated network
// feeds every backend (network.topology = "file") and an external program. Bad input: one message, exit 2.
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "models/galbraith_lif/galbraith_plan.hpp"
#include "models/registry.hpp"

int main(int argc, char** argv) {
  using namespace kbrain;
  try {
    if (argc < 3) throw ConfigError("usage: kbrain_galbraith_network EXPERIMENT.toml OUT.bin [--size N] [--synapses S]");
    PlanRequest request;
    for (int k = 3; k < argc; ++k) {
      const std::string flag = argv[k];
      if (k + 1 >= argc) throw ConfigError(flag + ": needs a value");
      char* end = nullptr;
      const long long v = std::strtoll(argv[++k], &end, 10);
      if (*end != '\0' || v < 1) throw ConfigError(fmt::format("{}: '{}' is not a whole number >= 1", flag, argv[k]));
      if (flag == "--size") request.size = v;
      else if (flag == "--synapses") request.density = double(v);
      else throw ConfigError("unknown option " + flag + " (--size N, --synapses S)");
    }
    const ExperimentConfig cfg = load_model_experiment(argv[1]);
    if (cfg.model != "galbraith_lif")
      throw ConfigError(fmt::format("{}: model.kind is \"{}\"; this tool writes galbraith_lif networks", argv[1], cfg.model));
    const galbraith::GalbraithPlan plan = galbraith::make_galbraith_plan(cfg, request);
    galbraith::write_connection_file(argv[2], *plan.network);
    fmt::print("{}: {} neurons, {} synapses ({} network), {} bytes\n", argv[2], plan.neurons(), plan.synapses(),
               galbraith::to_string(plan.topology), plan.synapses() * galbraith::kConnectionRecordBytes);
    return 0;
  } catch (const ConfigError& e) {
    fmt::print(stderr, "kbrain_galbraith_network: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kbrain_galbraith_network: error: {}\n", e.what());
    return 1;
  }
}
