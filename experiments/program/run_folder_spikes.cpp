// read_run_folder_spikes: run.json's facts and populations, then every spike of spikes.csv (preferred: it is the
// default format), spikes.kbs or spikes.h5, each checked against the run's neuron count before it is kept.
#include "experiments/program/run_folder_spikes.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "core/config/experiment_config.hpp"
#include "core/recorders/manifest_reader.hpp"
#include "core/recorders/sonata_spikes_reader.hpp"
#include "core/recorders/trace_recorder.hpp"

namespace kbrain {
namespace {

namespace fs = std::filesystem;

// run.json's number `key`, a count or index; `missing` is said when it is absent.
std::int64_t whole_number(const RunManifest& m, const fs::path& file, const std::string& key,
                          const std::string& missing = "") {
  const auto it = m.numbers.find(key);
  if (it == m.numbers.end()) throw ConfigError(fmt::format("{}: no \"{}\"{}", file.string(), key, missing));
  const double v = it->second;
  if (!(v >= 0) || v != std::floor(v) || v > 9e15)
    throw ConfigError(fmt::format("{}: \"{}\" is {}, not a whole number >= 0", file.string(), key, v));
  return static_cast<std::int64_t>(v);
}

std::vector<RunPopulationSpikes> populations_of(const RunManifest& m, const fs::path& file, std::int64_t neurons) {
  std::vector<RunPopulationSpikes> pops;
  const auto listed = m.fields.find("populations");
  if (listed == m.fields.end()) {
    pops.push_back({"all", 0, neurons, {}});
  } else {
    std::stringstream names(listed->second);
    for (std::string name; std::getline(names, name, ',');) {
      if (name.empty()) throw ConfigError(fmt::format("{}: \"populations\" has an empty name", file.string()));
      for (const auto& p : pops)
        if (p.name == name)
          throw ConfigError(fmt::format("{}: \"populations\" names {} twice", file.string(), name));
      pops.push_back({name, whole_number(m, file, "first_" + name), whole_number(m, file, "neurons_" + name), {}});
    }
    if (pops.empty()) throw ConfigError(fmt::format("{}: \"populations\" names no population", file.string()));
  }
  // Ranges inside the run and disjoint, so that each neuron's spikes go to one population.
  std::vector<std::pair<std::int64_t, std::string>> starts;
  for (const auto& p : pops) {
    if (p.first + p.size > neurons)
      throw ConfigError(fmt::format("{}: population {} (neurons {} to {}) goes beyond the run's {} neurons",
                                    file.string(), p.name, p.first, p.first + p.size - 1, neurons));
    starts.emplace_back(p.first, p.name);
  }
  std::sort(starts.begin(), starts.end());
  for (std::size_t k = 1; k < starts.size(); ++k) {
    const auto& prev =
        *std::find_if(pops.begin(), pops.end(), [&](const auto& p) { return p.name == starts[k - 1].second; });
    if (prev.first + prev.size > starts[k].first)
      throw ConfigError(fmt::format("{}: populations {} and {} overlap", file.string(), prev.name, starts[k].second));
  }
  return pops;
}

// The population of every neuron (its position in the list), −1 for a neuron of none.
struct NeuronOwners {
  std::vector<std::int32_t> pop;
  explicit NeuronOwners(const std::vector<RunPopulationSpikes>& pops, std::int64_t neurons)
      : pop(static_cast<std::size_t>(neurons), -1) {
    for (std::size_t p = 0; p < pops.size(); ++p)
      std::fill(pop.begin() + pops[p].first, pop.begin() + pops[p].first + pops[p].size, static_cast<std::int32_t>(p));
  }
};

void add_spike_at(RunFolderSpikes& run, const NeuronOwners& owners, double t_ms, std::int64_t cell) {
  const std::int32_t p = owners.pop[static_cast<std::size_t>(cell)];
  if (p < 0) return;
  auto& pop = run.populations[static_cast<std::size_t>(p)];
  pop.trains[static_cast<std::size_t>(cell - pop.first)].push_back(t_ms);
}

void add_spike(RunFolderSpikes& run, const NeuronOwners& owners, std::int64_t step, std::int64_t cell) {
  add_spike_at(run, owners, static_cast<double>(step) * run.dt_ms, cell);
}

template <class Where>
void check_spike(const RunFolderSpikes& run, std::int64_t step, std::int64_t cell, Where where) {
  if (step < 0) throw ConfigError(fmt::format("{}: step {} is negative", where(), step));
  if (cell < 0 || cell >= run.neurons)
    throw ConfigError(fmt::format("{}: neuron {} is not one of the run's {} neurons (0 to {})", where(), cell,
                                  run.neurons, run.neurons - 1));
}

bool parse_int(const char*& p, const char* end, std::int64_t& v) {
  const auto r = std::from_chars(p, end, v);
  if (r.ec != std::errc() || r.ptr == p) return false;
  p = r.ptr;
  return true;
}

void read_csv(RunFolderSpikes& run, const NeuronOwners& owners, const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("{}: cannot be read", file.string()));
  std::string line;
  std::int64_t number = 1;
  if (!std::getline(in, line) || line != "step,cell")
    throw ConfigError(fmt::format("{}:1: the header is not \"step,cell\"", file.string()));
  while (std::getline(in, line)) {
    ++number;
    const auto where = [&] { return fmt::format("{}:{}", file.string(), number); };
    const char* p = line.data();
    const char* end = p + line.size();
    std::int64_t step = 0, cell = 0;
    if (!parse_int(p, end, step) || p == end || *p++ != ',' || !parse_int(p, end, cell) || p != end)
      throw ConfigError(fmt::format("{}: \"{}\" is not \"step,cell\" (two whole numbers)", where(), line));
    check_spike(run, step, cell, where);
    add_spike(run, owners, step, cell);
  }
  if (in.bad()) throw ConfigError(fmt::format("{}: reading failed after line {}", file.string(), number));
}

void read_kbs(RunFolderSpikes& run, const NeuronOwners& owners, const fs::path& file) {
  std::vector<std::pair<std::int64_t, std::int64_t>> events;
  try {
    events = read_binary_spikes(file);
  } catch (const std::runtime_error& e) {
    throw ConfigError(e.what());
  }
  for (std::size_t k = 0; k < events.size(); ++k) {
    const auto [step, cell] = events[k];
    check_spike(run, step, cell, [&] { return fmt::format("{}: spike {}", file.string(), k); });
    add_spike(run, owners, step, cell);
  }
}

// spikes.h5: its timestamps are step * dt_ms already (core/recorders/sonata_spikes.cpp), the same doubles as the
// other formats give.
void read_h5(RunFolderSpikes& run, const NeuronOwners& owners, const fs::path& file) {
  std::vector<SonataSpikePopulation> pops;
  try {
    pops = read_sonata_spikes(file);
  } catch (const std::runtime_error& e) {
    throw ConfigError(e.what());
  }
  if (pops.size() != 1)
    throw ConfigError(fmt::format("{}: {} populations under /spikes; a kbrain run writes one", file.string(),
                                  pops.size()));
  const SonataSpikePopulation& p = pops.front();
  for (std::size_t k = 0; k < p.timestamps.size(); ++k) {
    const auto where = [&] { return fmt::format("{}: spike {}", file.string(), k); };
    if (!(p.timestamps[k] >= 0)) throw ConfigError(fmt::format("{}: time {} ms", where(), p.timestamps[k]));
    const auto cell = static_cast<std::int64_t>(std::min<std::uint64_t>(p.node_ids[k], std::numeric_limits<std::int64_t>::max()));
    check_spike(run, 0, cell, where);
    add_spike_at(run, owners, p.timestamps[k], cell);
  }
}

}  // namespace

RunFolderSpikes read_run_folder_spikes(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ConfigError(fmt::format("{}: no such run folder", dir.string()));
  const fs::path json = dir / "run.json";
  if (!fs::is_regular_file(json, ec))
    throw ConfigError(fmt::format("{}: missing (not a kbrain run folder)", json.string()));
  RunManifest m;
  try {
    m = read_manifest(json);
  } catch (const std::runtime_error& e) {
    throw ConfigError(e.what());
  }
  if (!m.complete) {
    const auto failed = m.fields.find("failed");
    throw ConfigError(fmt::format("{}: the run did not complete (\"complete\": false{})", json.string(),
                                  failed == m.fields.end() ? "" : "; failed: " + failed->second));
  }
  RunFolderSpikes run;
  run.dir = dir;
  const auto dt = m.numbers.find("dt_ms");
  if (dt == m.numbers.end() || !(dt->second > 0) || !std::isfinite(dt->second))
    throw ConfigError(fmt::format("{}: no \"dt_ms\" > 0 (not a run's run.json?)", json.string()));
  run.dt_ms = dt->second;
  run.steps = whole_number(m, json, "steps");
  // a run's "steps" are its timed steps; the warm-up before them is simulated and recorded too
  if (m.numbers.count("warmup_steps")) run.steps += whole_number(m, json, "warmup_steps");
  run.neurons = whole_number(m, json, "neurons", " (not a spiking run)");
  if (run.neurons > std::numeric_limits<std::int32_t>::max())
    throw ConfigError(fmt::format("{}: {} neurons: more than the spike files can index", json.string(), run.neurons));
  run.populations = populations_of(m, json, run.neurons);
  for (auto& p : run.populations) p.trains.resize(static_cast<std::size_t>(p.size));
  const NeuronOwners owners(run.populations, run.neurons);

  if (fs::is_regular_file(dir / "spikes.csv", ec)) {
    run.spike_file = "spikes.csv";
    read_csv(run, owners, dir / run.spike_file);
  } else if (fs::is_regular_file(dir / "spikes.kbs", ec)) {
    run.spike_file = "spikes.kbs";
    read_kbs(run, owners, dir / run.spike_file);
  } else if (fs::is_regular_file(dir / "spikes.h5", ec)) {
    run.spike_file = "spikes.h5";
    read_h5(run, owners, dir / run.spike_file);
  } else {
    throw ConfigError(fmt::format("{}: no spikes.csv, spikes.kbs or spikes.h5 (record the spikes: [record] spikes = "
                                  "true)", dir.string()));
  }
  // The files are in step order; a train out of order (hand-made input) is sorted rather than refused.
  for (auto& p : run.populations)
    for (auto& t : p.trains)
      if (!std::is_sorted(t.begin(), t.end())) std::sort(t.begin(), t.end());
  return run;
}

}  // namespace kbrain
