// `kbrain compare EXP --ranks 1,2,4 [--sizes ...] [--weak]` (docs/mpi.md): for each size and rank count K, runs
// `mpiexec -n K kbrain run EXP --size N --phase-timing` (this executable, a fresh MPI job each time), reads its
// run.json and prints a strong-scaling (fixed total size) or weak-scaling (--weak: fixed size per rank) table with
// the phase maxima over ranks (generation, plan, simulate, compute, exchange wait, exchange and its fraction of the
// step), then one row per rank of every run: compute, exchange and exchange fraction (fenced phases). Written to
// compare_ranks.{md,csv} and compare_ranks_per_rank.csv.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "core/text/atomic_file.hpp"
#include "experiments/program/backend_facts.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/child_refusal.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/output_folder_command.hpp"
#include "experiments/program/shell_quote.hpp"
#include "models/olive/olive_plan.hpp"
#include "models/registry.hpp"
#include "kbrain_build_config.hpp"

namespace kbrain {

namespace {

// What compare reads back from one run's run.json: its numbers (empty unless the run completed) and the halo
// exchange it used ("halo_exchange": mpi | mpi-staged | peer; "" if absent).
struct RunManifestValues {
  std::map<std::string, double> numbers;
  std::string halo_exchange;
};

RunManifestValues read_run_json(const std::filesystem::path& run_json) {
  std::ifstream f(run_json);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  RunManifestValues out;
  if (text.find("\"complete\": true") == std::string::npos) return out;
  const std::regex num("\"([a-z_0-9]+)\"\\s*:\\s*(-?[0-9.eE+-]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), num); it != std::sregex_iterator(); ++it)
    out.numbers[(*it)[1]] = std::stod((*it)[2]);
  std::smatch m;
  if (std::regex_search(text, m, std::regex("\"halo_exchange\"\\s*:\\s*\"([a-z-]+)\""))) out.halo_exchange = m[1];
  return out;
}

// The `mpiexec -n K kbrain run ...` of one point of the scaling table; its output goes to DIR.log.
std::string scaling_run_command(const std::string& launcher, int k, const std::string& self, const CompareOptions& o,
                                const std::string& backend, const std::string& precision,
                                const std::filesystem::path& dir, std::int64_t run_size, double density) {
  std::string cmd = fmt::format("{} -n {} {} run {} -b {} -p {} -o {} --partition {} --halo-exchange {} --phase-timing",
                                launcher, k, shell_quote(self), shell_quote(o.experiment), backend, precision,
                                shell_quote(dir.string()), o.partition, o.halo_exchange);
  if (run_size > 0) cmd += fmt::format(" --size {}", run_size);
  if (o.steps > 0) cmd += fmt::format(" --steps {}", o.steps);
  if (density > 0) cmd += fmt::format(" --density {}", density);
  return cmd + " > " + shell_quote(dir.string() + ".log") + " 2>&1";
}

// Each rank's fenced phases of one run (its run.json numbers) as table rows.
template <class Numbers>
void append_per_rank(const Numbers& n, std::int64_t size, double density, int k, std::string& md, std::string& csv) {
  auto get = [&n](const std::string& key) { return n.count(key) ? n.at(key) : 0.0; };
  for (int q = 0; q < k; ++q) {
    const std::string p = fmt::format("rank{}_", q);
    const double rs = get(p + "simulate_s"), rc = get(p + "compute_s"), rw = get(p + "exchange_wait_s");
    const double re = get(p + "exchange_s"), rf = 100 * get(p + "exchange_fraction");
    md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.1f} |\n", k, q, rs, rc, rw, re, rf);
    csv += fmt::format("{},{},{},{},{},{},{},{},{:.2f}\n", size, density, k, q, rs, rc, rw, re, rf);
  }
}

}  // namespace

int cmd_compare_ranks(const CompareOptions& o) {
  const std::string mpiexec = std::getenv("KBRAIN_MPIEXEC") ? std::getenv("KBRAIN_MPIEXEC") : KBRAIN_MPIEXEC;
  const std::string flags =
      std::getenv("KBRAIN_MPIEXEC_FLAGS") ? std::getenv("KBRAIN_MPIEXEC_FLAGS") : KBRAIN_MPIEXEC_FLAGS;
  if (mpiexec.empty())
    throw ConfigError("--ranks needs an MPI build (-DKBRAIN_ENABLE_MPI=ON) or KBRAIN_MPIEXEC=<mpiexec>");
  const ExperimentConfig cfg = load_model_experiment(o.experiment);
  if (o.backends.size() > 1 || o.precisions.size() > 1)
    throw ConfigError("--ranks compares one backend in one precision (give --backends X --precisions Y)");
  const std::string backend = !o.backends.empty() ? o.backends[0] : !cfg.backend.empty() ? cfg.backend
                                                                                         : backend_names().front();
  if (!has_backend(backend)) throw ConfigError(fmt::format("backend '{}' is not compiled into this kbrain", backend));
  const std::string precision = !o.precisions.empty() ? o.precisions[0] : to_string(cfg.precision);
  for (int k : o.ranks)
    if (k < 1) throw ConfigError("--ranks: rank counts must be >= 1");
  std::vector<std::int64_t> sizes = o.sizes;
  if (sizes.empty()) sizes.push_back(0);
  // --densities were validated by cmd_compare. Unlike the single-process table, the ranks table runs the file's network.density unless --densities is given
  // (compare.densities would multiply the mpiexec runs).
  std::vector<double> densities = o.densities;
  if (densities.empty()) densities.push_back(0);
  const bool mesh = cfg.network.type == "mesh2d";
  if (o.weak && sizes[0] == 0) throw ConfigError("--weak needs --sizes (the size per rank)");
  OutputFolder folder(o.out_dir.empty() ? std::filesystem::path("out") / cfg.name / "compare_ranks"
                                        : std::filesystem::path(o.out_dir));
  const auto out_dir = folder.work();  // moved to folder.target() once every run has completed
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();

  std::string md = fmt::format(
      "# {} scaling: {} / {} on {}\n\n{} scaling; date {}, commit {}, command `{}`\n\n"
      "Phase times are maxima over ranks (seconds), measured with fenced phases (`kbrain run --phase-timing`): "
      "`compute` = interior + border kernels, `exchange` = pack + staging copies + wait + unpack, `exch %` = "
      "exchange / simulate of that rank (max over ranks); `wait %` = exchange wait / simulate. "
      "Efficiency: strong T1/(K·TK), weak T1/TK (simulate time).\n\n",
      cfg.name, backend, precision, backend_facts(backend).description, o.weak ? "Weak" : "Strong", today_iso(),
      git_commit(), command_line());
  std::string csv = "size,density,ranks,cells,junctions,steps,generate_s,plan_s,simulate_s,compute_s,exchange_wait_s,"
                    "wait_pct,halo_values_per_step,speedup,efficiency,exchange_s,exchange_pct,halo_exchange\n";
  std::string per_rank_csv = "size,density,ranks,rank,simulate_s,compute_s,exchange_wait_s,exchange_s,exchange_pct\n";
  int runs = 0, failed = 0;
  for (double density : densities)
  for (auto size : sizes) {
    if (density > 0)
      md += fmt::format("**{} junctions per cell{}**\n\n", density,
                        size > 0 ? fmt::format(", {} cells {}", size, o.weak ? "per rank" : "in all") : "");
    md += "| ranks | cells | junctions | halo values/step | halo exchange | generate s | plan s | simulate s | "
          "compute s | exchange wait s | wait % | exchange s | exch % | ns/cell-step | speedup | efficiency |\n"
          "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    std::string per_rank_md = "| ranks | rank | simulate s | compute s | exchange wait s | exchange s | exch % |\n"
                              "|---:|---:|---:|---:|---:|---:|---:|\n";
    double t1 = 0;
    int k1 = 0;
    for (int k : o.ranks) {
      ++runs;
      std::int64_t run_size = size;
      if (o.weak) run_size = mesh ? std::llround(double(size) * std::sqrt(double(k))) : size * k;
      const auto dir = out_dir / (density > 0 ? fmt::format("size{}_density{}_ranks{}", run_size, density, k)
                                              : fmt::format("size{}_ranks{}", run_size, k));
      const std::string cmd = scaling_run_command(shell_quote(mpiexec) + " " + flags, k, self, o, backend, precision, dir,
                                                  run_size, density);
      fmt::print(stderr, "[compare --ranks] {}\n", cmd);
      const int rc = std::system(cmd.c_str());
      stop_after_child(rc, folder);
      const RunManifestValues manifest = read_run_json(dir / "run.json");
      const auto& n = manifest.numbers;
      if (const std::string refusal = memory_refusal_of_child(rc, dir.string() + ".log"); !refusal.empty()) {
        fmt::print(stderr, "[compare --ranks] {} ranks: not run: does not fit\n", k);
        md += fmt::format("| {} | not run: {} ||||||||||||||\n", k, refusal);
        continue;
      }
      if (rc != 0 || n.empty()) {
        ++failed;
        fmt::print(stderr, "[compare --ranks] run failed (exit {}); see {}.log\n", rc, dir.string());
        md += fmt::format("| {} | failed (see {}.log) ||||||||||||||\n", k, dir.filename().string());
        continue;
      }
      auto get = [&n](const std::string& key) { return n.count(key) ? n.at(key) : 0.0; };
      const double sim = n.at("simulate_s"), wait = get("exchange_wait_s");
      if (t1 == 0) t1 = sim, k1 = k;
      const double speedup = t1 / sim * 1.0;
      const double eff = o.weak ? t1 / sim : t1 * k1 / (sim * k);
      const double cells = n.at("cells"), steps = n.at("steps");
      const double exch = get("exchange_s"), exch_pct = 100 * get("exchange_fraction_max");
      const std::string how = k > 1 ? manifest.halo_exchange : "–";
      md += fmt::format("| {} | {:.0f} | {:.0f} | {:.0f} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.1f} | {:.3f} | "
                        "{:.1f} | {:.2f} | {:.2f} | {:.2f} |\n",
                        k, cells, get("junctions"), get("halo_values_per_step"), how, get("generate_s"), get("plan_s"), sim,
                        get("compute_s"), wait, 100 * wait / sim, exch, exch_pct, sim * 1e9 / (cells * steps), speedup,
                        eff);
      csv += fmt::format("{},{},{},{:.0f},{:.0f},{:.0f},{},{},{},{},{},{:.2f},{:.0f},{:.4f},{:.4f},{},{:.2f},{}\n", size,
                         density, k, cells, get("junctions"), steps, get("generate_s"), get("plan_s"), sim,
                         get("compute_s"), wait, 100 * wait / sim, get("halo_values_per_step"), speedup, eff, exch,
                         exch_pct, manifest.halo_exchange);
      append_per_rank(n, size, density, k, per_rank_md, per_rank_csv);
    }
    md += "\nPer rank (fenced phases):\n\n" + per_rank_md;
    md += "\n";
  }
  text::write_file_atomically(out_dir / "compare_ranks.md", md);
  text::write_file_atomically(out_dir / "compare_ranks.csv", csv);
  text::write_file_atomically(out_dir / "compare_ranks_per_rank.csv", per_rank_csv);
  auto json_text = [](std::string v) {  // a JSON string body
    std::string out;
    for (char c : v) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return out;
  };
  text::write_file_atomically(  // what the scaling picture needs besides the CSV
      out_dir / "compare_ranks.json",
      fmt::format("{{\"experiment\": \"{}\", \"scaling\": \"{}\", \"backend\": \"{}\", \"precision\": "
                  "\"{}\", \"hardware\": \"{}\", \"commit\": \"{}\", \"date\": \"{}\"}}\n",
                  json_text(cfg.name), o.weak ? "weak" : "strong", backend, precision,
                  json_text(backend_facts(backend).description), git_commit(), today_iso()));
  fmt::print("{}", md);
  if (failed > 0) {  // the table says which; the exit code says that the comparison is not whole
    fmt::print(stderr, "kbrain: error: {} of {} ranked runs failed (their logs are beside the table in {})\n", failed,
               runs, out_dir.string());
    return keep_unfinished(folder, 1);
  }
  folder.publish();
  if (!o.no_plots) draw_pictures(folder.target());
  return 0;
}

}  // namespace kbrain
