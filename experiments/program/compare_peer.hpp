#pragma once
// `kbrain compare --peer NAME`: another simulator's time and agreement as rows of the speedup table. The one peer is
// Brian2 (C++ standalone device), run by bench/peers/brian2_peer.py on the network kbrain generated (exported with
// [record] synapses): its simulation time (Brian2's own measure of its run loop) and each population's rate and ISI
// CV, the rates checked against the reference run's within kPeerRateTolerance. Where the peer cannot run (Brian2 not
// importable, no Python), the comparison still completes and its table says that the peer was skipped, and why.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "core/report/comparison_table.hpp"
#include "spiking/spike_statistics.hpp"

namespace kbrain {

inline constexpr double kPeerRateTolerance = 0.10;  // relative difference of each population's rate

// The peers `--peer` knows; ConfigError (exit 2) for another name, or for an experiment that is not a spiking network.
void check_peer(const std::string& peer, const ExperimentConfig& cfg);

// What one peer run gave: ran, or skipped / failed with the reason.
struct PeerOutcome {
  bool ran = false, skipped = false;
  std::string reason;      // skipped or failed: why
  std::string label;       // the row's backend, e.g. "brian2 (cpp_standalone, 2 threads)"
  std::string version;     // the peer's version
  std::int64_t neurons = 0, synapses = 0, steps = 0;
  double simulate_s = 0, build_s = 0;
  std::vector<spiking::PopulationStats> populations;
};

// One run of the peer on the experiment at `size` (0: the file's) for `steps` (0: the file's), `threads` threads,
// in `precision`; scratch files under `work` (removed afterwards).
PeerOutcome run_peer(const std::string& peer, const ExperimentConfig& cfg, std::int64_t size, std::int64_t steps,
                     int threads, const std::string& precision, const std::filesystem::path& work);

// The row of a peer outcome in a table of `columns`, agreement against `reference` (the compare's reference run at
// the same size). Keys it fills where the table has them: neurons/synapses (kCells/kConnections given), simulate_s,
// ns_per_cell_step, wall_s_per_bio_s, energy_j (n/a), rate_hz_<pop>, isi_cv_<pop>, identical_spikes (n/a),
// max_rate_diff_pct, max_cv_diff_pct; the others are left empty. The note states the tolerance and the verdict.
ComparisonTableRow peer_row(const PeerOutcome& o, const std::string& peer, const std::string& size_label,
                            const std::string& precision, std::int64_t steps_requested, double dt_ms,
                            const std::vector<ReportColumn>& columns, const char* cells_key,
                            const char* connections_key, const std::vector<spiking::PopulationStats>& reference);

}  // namespace kbrain
