// The peer script is run as `<python> <script> point EXPERIMENT --kbrain <this kbrain> [--size N] [--steps S]
// --threads T --precision P --out FILE`; it writes FILE as "key=value" lines (status, label, simulate_s, build_s,
// neurons, synapses, steps, version, populations (comma-separated names), and rate_hz_<pop>, isi_cv_<pop>, spikes_<pop>, neurons_<pop> per population) and exits
// 0, or 77 when Brian2 is not importable (its last output line says why). Python: KBRAIN_PYTHON, else the build's
// system Python; script: KBRAIN_PEER_SCRIPT, else bench/peers/brian2_peer.py of the source tree.
#include "experiments/program/compare_peer.hpp"

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "experiments/program/shell_quote.hpp"
#include "kbrain_build_config.hpp"

namespace kbrain {

namespace {

const std::vector<std::string> kPeers = {"brian2"};

std::string last_line(const std::string& text) {
  std::string s = text;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  const auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double relative_pct(double a, double ref) {
  if (!std::isfinite(a) || !std::isfinite(ref)) return std::nan("");
  return ref != 0 ? 100.0 * std::fabs(a - ref) / std::fabs(ref) : (a == 0 ? 0.0 : 100.0);
}

}  // namespace

void check_peer(const std::string& peer, const ExperimentConfig& cfg) {
  if (peer.empty()) return;
  bool known = false;
  for (const auto& p : kPeers) known = known || p == peer;
  if (!known) throw ConfigError(fmt::format("--peer: unknown peer \"{}\" (known: brian2)", peer));
  if (!cfg.spiking_family())
    throw ConfigError(fmt::format("--peer: {} is a {} experiment; --peer compares spiking networks only "
                                  "(model.kind = lif, hh, izhikevich, cortex_hh)",
                                  cfg.source.string(), cfg.model));
}

PeerOutcome run_peer(const std::string& peer, const ExperimentConfig& cfg, std::int64_t size, std::int64_t steps,
                     int threads, const std::string& precision, const std::filesystem::path& work) {
  namespace fs = std::filesystem;
  PeerOutcome o;
  const char* python = std::getenv("KBRAIN_PYTHON");
  const char* script = std::getenv("KBRAIN_PEER_SCRIPT");
  const std::string script_path = script ? script : KBRAIN_SOURCE_DIR "/bench/peers/" + peer + "_peer.py";
  std::error_code ec;
  fs::create_directories(work, ec);
  const fs::path result = work / "peer_result.txt", log = work / "peer_log.txt";
  fs::remove(result, ec);
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  std::string cmd = fmt::format("{} {} point {} --kbrain {} --threads {} --precision {} --work {} --out {}",
                                shell_quote(python ? python : KBRAIN_SYSTEM_PYTHON), shell_quote(script_path),
                                shell_quote(cfg.source.string()), shell_quote(self), threads, precision,
                                shell_quote((work / "scratch").string()), shell_quote(result.string()));
  if (size > 0) cmd += fmt::format(" --size {}", size);
  if (steps > 0) cmd += fmt::format(" --steps {}", steps);
  cmd += " > " + shell_quote(log.string()) + " 2>&1";
  fmt::print(stderr, "[compare]   peer {} ({} threads, {}) ...\n", peer, threads, precision);
  const int rc = std::system(cmd.c_str());
  const int code = rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + (WIFSIGNALED(rc) ? WTERMSIG(rc) : 0);
  const std::string said = last_line(slurp(log));
  if (code == 77) {
    o.skipped = true;
    o.reason = said.empty() ? "Brian2 is not importable" : said;
  } else if (code == 126 || code == 127) {
    o.skipped = true;
    o.reason = fmt::format("{} could not be started ({})", python ? python : KBRAIN_SYSTEM_PYTHON,
                           said.empty() ? fmt::format("exit {}", code) : said);
  } else if (code != 0) {
    o.reason = fmt::format("the peer script failed (exit {}): {} (log: {})", code, said, log.string());
  } else {
    std::map<std::string, std::string> kv;
    std::ifstream in(result);
    std::string line;
    while (std::getline(in, line)) {
      const auto eq = line.find('=');
      if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
    }
    auto number = [&](const std::string& k) { return kv.count(k) ? std::strtod(kv[k].c_str(), nullptr) : std::nan(""); };
    if (kv["status"] != "ok") {
      o.reason = fmt::format("the peer script wrote no result (log: {})", log.string());
    } else {
      o.ran = true;
      o.label = kv["label"];
      o.version = kv["version"];
      o.simulate_s = number("simulate_s");
      o.build_s = number("build_s");
      o.neurons = static_cast<std::int64_t>(number("neurons"));
      o.synapses = static_cast<std::int64_t>(number("synapses"));
      o.steps = static_cast<std::int64_t>(number("steps"));
      std::istringstream pops(kv["populations"]);
      std::string name;
      while (std::getline(pops, name, ',')) {
        spiking::PopulationStats s;
        s.name = name;
        s.rate_hz = number("rate_hz_" + name);
        s.isi_cv = number("isi_cv_" + name);
        s.neurons = static_cast<std::int64_t>(number("neurons_" + name));
        s.spikes = static_cast<std::int64_t>(number("spikes_" + name));
        o.populations.push_back(s);
      }
    }
  }
  if (o.ran) fs::remove_all(work / "scratch", ec);
  return o;
}

ComparisonTableRow peer_row(const PeerOutcome& o, const std::string& peer, const std::string& size_label,
                            const std::string& precision, std::int64_t steps_requested, double dt_ms,
                            const std::vector<ReportColumn>& columns, const char* cells_key,
                            const char* connections_key, const std::vector<spiking::PopulationStats>& reference) {
  ComparisonTableRow row;
  row.size_label = size_label;
  row.backend = o.ran ? o.label : peer;
  row.precision = precision;
  row.steps = o.ran ? o.steps : 0;
  row.steps_requested = o.ran ? steps_requested : 0;  // a row that did not run is no reduced run (no †)
  row.simulate_s = o.ran ? o.simulate_s : std::nan("");
  if (!o.ran) {
    row.values.assign(columns.size(), ReportValue::missing());
    row.note = fmt::format("peer {} {}: {}", peer, o.skipped ? "skipped" : "failed", o.reason);
    return row;
  }
  std::map<std::string, ReportValue> v;
  v[cells_key] = ReportValue::num(double(o.neurons));
  v[connections_key] = ReportValue::num(double(o.synapses));
  v["simulate_s"] = ReportValue::num(o.simulate_s);
  v["ns_per_cell_step"] = ReportValue::num(o.simulate_s * 1e9 / (double(o.neurons) * double(o.steps)));
  v["wall_s_per_bio_s"] = ReportValue::num(o.simulate_s / (double(o.steps) * dt_ms / 1000.0));
  v["energy_j"] = ReportValue::str("n/a");
  v["nj_per_cell_step"] = ReportValue::str("n/a");
  v["identical_spikes"] = ReportValue::str("n/a");
  double rate_diff = reference.empty() ? std::nan("") : 0.0, cv_diff = rate_diff;
  bool agree = !reference.empty();
  std::string worst;
  for (const auto& p : o.populations) {
    v["rate_hz_" + p.name] = ReportValue::num(p.rate_hz);
    v["isi_cv_" + p.name] = ReportValue::num(p.isi_cv);
    for (const auto& r : reference) {
      if (r.name != p.name) continue;
      const double d = relative_pct(p.rate_hz, r.rate_hz);
      if (!(d <= 100.0 * kPeerRateTolerance)) agree = false;
      if (d > rate_diff || std::isnan(d)) worst = p.name;
      rate_diff = std::fmax(rate_diff, d);
      cv_diff = std::fmax(cv_diff, relative_pct(p.isi_cv, r.isi_cv));
    }
  }
  v["max_rate_diff_pct"] = ReportValue::num(rate_diff);
  v["max_cv_diff_pct"] = ReportValue::num(cv_diff);
  for (const auto& c : columns) {
    const auto it = v.find(c.key);
    row.values.push_back(it != v.end() ? it->second : ReportValue::missing());
  }
  row.note = fmt::format("peer {} {}: same synapses, its own initial values and noise; rates {} the reference run's "
                         "within {:.0f} % (largest difference {:.1f} %{}); Brian2 build {:.1f} s not counted",
                         peer, o.version, agree ? "agree with" : "DISAGREE with", 100.0 * kPeerRateTolerance, rate_diff,
                         worst.empty() ? "" : ", " + worst, o.build_s);
  return row;
}

}  // namespace kbrain
