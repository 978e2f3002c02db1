// `kbrain compare EXP --threads 1,2,4,8,16 [--sizes ...] [--variants ...]`: OpenMP strong scaling over thread counts,
// the counterpart of a study's MPI core counts. Kokkos fixes its OpenMP thread pool when it starts, so each count K
// is a fresh process: `OMP_NUM_THREADS=K kbrain compare EXP --backends openmp ...` into OUT/threads_K, whose
// compare.csv rows are gathered into one table per (size, precision): time per step, speedup over the fewest threads
// and parallel efficiency. Written to thread_scaling.{md,csv}; each run's own table stays in OUT/threads_K.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/hardware_info.hpp"
#include "backends/registry.hpp"
#include "core/text/atomic_file.hpp"
#include "experiments/program/backend_facts.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/output_folder_command.hpp"
#include "experiments/program/shell_quote.hpp"
#include "models/registry.hpp"

namespace kbrain {

namespace {

// One CSV record (RFC 4180: quoted fields may hold commas and doubled quotes).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// The rows of a compare.csv as column -> text maps (empty when the file is missing).
std::vector<std::map<std::string, std::string>> read_compare_csv(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::vector<std::map<std::string, std::string>> rows;
  if (!std::getline(in, line)) return rows;
  const auto header = csv_fields(line);
  while (std::getline(in, line)) {
    const auto fields = csv_fields(line);
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < header.size() && k < fields.size(); ++k) row[header[k]] = fields[k];
    rows.push_back(std::move(row));
  }
  return rows;
}

template <class T>
std::string joined(const std::vector<T>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ",") + fmt::format("{}", v);
  return out;
}

std::string child_command(const std::string& self, const CompareOptions& o, int threads, const std::filesystem::path& dir) {
  std::string cmd = fmt::format("OMP_NUM_THREADS={} OMP_PROC_BIND=spread OMP_PLACES=threads {} compare {} --backends "
                                "openmp --out {} --no-plots",
                                threads, shell_quote(self), shell_quote(o.experiment), shell_quote(dir.string()));
  if (!o.precisions.empty()) cmd += " --precisions " + shell_quote(joined(o.precisions));
  if (!o.sizes.empty()) cmd += " --sizes " + joined(o.sizes);
  if (!o.densities.empty()) cmd += " --densities " + joined(o.densities);
  if (!o.variants.empty()) cmd += " --variants " + shell_quote(joined(o.variants));
  if (o.steps > 0) cmd += fmt::format(" --steps {}", o.steps);
  // compare gives OpenMP a budget of --max-slow-cell-steps x threads; divided by K here, so that every count runs
  // the same steps (a network's cost per step can change with the step, as the ring's wave spreads).
  if (o.max_slow_cell_steps > 0)
    cmd += fmt::format(" --max-slow-cell-steps {}", std::max<std::int64_t>(1, o.max_slow_cell_steps / threads));
  return cmd + " > " + shell_quote(dir.string() + ".log") + " 2>&1";
}

}  // namespace

int cmd_compare_threads(const CompareOptions& o) {
  if (!has_backend("openmp")) throw ConfigError("--threads needs the OpenMP backend, which is not compiled in");
  for (int k : o.threads)
    if (k < 1) throw ConfigError("--threads: thread counts must be >= 1");
  if (!o.backends.empty()) throw ConfigError("--threads runs the OpenMP backend only: leave out --backends");
  const ExperimentConfig cfg = load_model_experiment(o.experiment);
  OutputFolder folder(o.out_dir.empty() ? std::filesystem::path("out") / cfg.name / "compare_threads"
                                        : std::filesystem::path(o.out_dir));
  const auto out_dir = folder.work();  // moved to folder.target() once every run has completed
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  // The children inherit this thread's CPU affinity, which OMP_PROC_BIND has pinned to one core: widen it to every
  // online CPU first, or all K threads of a child would share that core.
  cpu_set_t every;
  CPU_ZERO(&every);
  for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; ++c) CPU_SET(c, &every);
  if (sched_setaffinity(0, sizeof every, &every) != 0)
    fmt::print(stderr, "[compare --threads] note: could not widen the CPU affinity; the children may share cores\n");

  // (size label, precision) -> rows in thread order: threads, steps, simulate s
  struct Point {
    int threads;
    double steps, simulate_s;
  };
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<Point>> points;
  std::vector<int> failed;
  std::vector<std::string> not_run;
  for (int k : o.threads) {
    const auto dir = out_dir / fmt::format("threads_{}", k);
    const std::string cmd = child_command(self, o, k, dir);
    fmt::print(stderr, "[compare --threads] {}\n", cmd);
    const int rc = std::system(cmd.c_str());
    stop_after_child(rc, folder);
    const auto rows = read_compare_csv(dir / "compare.csv");  // only a complete comparison has this file
    if (rc != 0 || rows.empty()) {
      fmt::print(stderr, "[compare --threads] {} threads failed (exit {}); see {}.log\n", k, rc, dir.string());
      failed.push_back(k);
      continue;
    }
    for (const auto& row : rows) {
      if (row.at("backend") != "openmp") continue;
      if (row.at("steps") == "0") {  // a size or run that does not fit (its note says why): listed below the table
        not_run.push_back(fmt::format("{} {} with {} threads: {}", row.at("size_label"), row.at("precision"), k,
                                      row.count("note") ? row.at("note") : std::string()));
        continue;
      }
      const auto key = std::make_pair(row.at("size_label"), row.at("precision"));
      if (!points.count(key)) order.push_back(key);
      points[key].push_back({k, std::stod(row.at("steps")), std::stod(row.at("simulate_s"))});
    }
  }
  std::string md = fmt::format(
      "# {} OpenMP thread scaling on {}\n\ndate {}, commit {}, command `{}`\n\nEach thread count is its own process "
      "(`OMP_NUM_THREADS=K`, `OMP_PROC_BIND=spread`, `OMP_PLACES=threads`); its full table is in threads_K/. "
      "µs/step = simulate s / steps; speedup and efficiency are against the fewest threads.\n\n",
      cfg.name, host_cpu_model(), today_iso(), git_commit(), command_line());
  std::string csv = "size_label,precision,threads,steps,simulate_s,us_per_step,speedup,efficiency\n";
  md += "| size | precision | threads | steps | simulate s | µs/step | speedup | efficiency |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& key : order) {
    const auto& list = points[key];
    const double base = list.front().simulate_s / list.front().steps;
    for (const Point& p : list) {
      const double per_step = p.simulate_s / p.steps;
      const double speedup = base / per_step, efficiency = speedup * list.front().threads / p.threads;
      md += fmt::format("| {} | {} | {} | {:.0f} | {:.4g} | {:.4g} | {:.2f} | {:.2f} |\n", key.first, key.second,
                        p.threads, p.steps, p.simulate_s, per_step * 1e6, speedup, efficiency);
      csv += fmt::format("\"{}\",{},{},{:.0f},{},{},{:.4f},{:.4f}\n", key.first, key.second, p.threads, p.steps,
                         p.simulate_s, per_step * 1e6, speedup, efficiency);
    }
  }
  if (!not_run.empty()) {
    md += "\nNot run:\n\n";
    for (const auto& line : not_run) md += "- " + line + "\n";
  }
  if (!failed.empty()) md += fmt::format("\nFailed thread counts (see threads_K.log): {}\n", joined(failed));
  text::write_file_atomically(out_dir / "thread_scaling.md", md);
  text::write_file_atomically(out_dir / "thread_scaling.csv", csv);
  fmt::print("{}", md);
  if (!failed.empty()) return keep_unfinished(folder, 1);
  folder.publish();
  return 0;
}

}  // namespace kbrain
