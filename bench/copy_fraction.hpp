#pragma once
// The achieved fraction of copy bandwidth of each IO-step benchmark: the bytes the step must move per second
// (bench/io_step_bytes.hpp) over the best copy bandwidth of the same backend measured in the same process
// (copy_bandwidth/<backend>/{kernel,deep_copy}, or the probe kbrain_bench runs when those were filtered out).
// Plain C++ so that tests can check it without Google Benchmark or Kokkos.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace kbrain::bench {

struct StepRate {
  std::string name;         // e.g. io_step/cuda/double/1024x1024/mesh/real_time
  double bytes_per_second;  // bytes the step must move / time
};

struct CopyRate {
  std::string backend;  // serial, openmp, cuda, ...
  std::string method;   // kernel, deep_copy, probe_kernel, probe_deep_copy
  double bytes_per_second;
};

struct FractionRow {
  std::string name;
  double step_bytes_per_second = 0;
  double copy_bytes_per_second = 0;
  std::string copy_method;
  double fraction = 0;
};

// Component k (from 0) of a '/'-separated benchmark name: ("copy_bandwidth/cuda/kernel/256MiB", 2) -> "kernel";
// "" when there are fewer components.
inline std::string name_component(const std::string& name, int k) {
  std::size_t begin = 0;
  for (int i = 0; i < k; ++i) {
    begin = name.find('/', begin);
    if (begin == std::string::npos) return "";
    ++begin;
  }
  const auto end = name.find('/', begin);
  return name.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// The backend of a benchmark name: "io_step/cuda/..." -> "cuda".
inline std::string backend_of(const std::string& name) { return name_component(name, 1); }

// One row per step rate whose backend has a copy rate, against that backend's fastest copy.
inline std::vector<FractionRow> copy_fractions(const std::vector<StepRate>& steps, const std::vector<CopyRate>& copies) {
  std::map<std::string, const CopyRate*> best;
  for (const CopyRate& c : copies)
    if (c.bytes_per_second > 0 && (!best.count(c.backend) || c.bytes_per_second > best[c.backend]->bytes_per_second))
      best[c.backend] = &c;
  std::vector<FractionRow> rows;
  for (const StepRate& s : steps) {
    const auto it = best.find(backend_of(s.name));
    if (it == best.end() || s.bytes_per_second <= 0) continue;
    rows.push_back({s.name, s.bytes_per_second, it->second->bytes_per_second, it->second->method,
                    s.bytes_per_second / it->second->bytes_per_second});
  }
  return rows;
}

// The rows as a Markdown table (GB/s = 1e9 bytes/s).
inline std::string format_fractions(const std::vector<FractionRow>& rows) {
  std::string out = "| benchmark | step GB/s | copy GB/s (method) | fraction of copy |\n|---|---:|---:|---:|\n";
  char line[512];
  for (const FractionRow& r : rows) {
    std::snprintf(line, sizeof line, "| %s | %.1f | %.1f (%s) | %.0f %% |\n", r.name.c_str(),
                  r.step_bytes_per_second * 1e-9, r.copy_bytes_per_second * 1e-9, r.copy_method.c_str(),
                  100 * r.fraction);
    out += line;
  }
  return out;
}

}  // namespace kbrain::bench
