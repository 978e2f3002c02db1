#pragma once
// Steps per iteration of the IO step benchmarks (bench_main.cpp, bench_io_generated.cpp).
#include <cstdio>
#include <cstdlib>

namespace kbrain::bench {

// Steps enqueued per benchmark iteration, before the fence that ends it. GPU backends: 100, as in a run, which
// enqueues steps without host synchronisation; with 10, the fence and the relaunch after it added a fixed cost
// per iteration that a run does not pay (docs/journal/2026-11-22-issue3-pass5.md measures both). Host backends: 10 (a step takes
// milliseconds). KBRAIN_BENCH_STEPS=N (a positive integer) sets both; anything else stops kbrain_bench with exit 2.
inline int steps_from_environment() {
  const char* env = std::getenv("KBRAIN_BENCH_STEPS");
  if (!env) return 0;
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  if (end == env || *end != '\0' || n < 1 || n > 1000000) {
    std::fprintf(stderr, "kbrain_bench: KBRAIN_BENCH_STEPS='%s' is not a step count (an integer 1 .. 1000000)\n", env);
    std::exit(2);
  }
  return static_cast<int>(n);
}
inline int steps_override() {  // 0: none; read once (main checks it before any benchmark runs)
  static const int steps = steps_from_environment();
  return steps;
}
template <class Backend>
int steps_per_iteration() {
  return steps_override() > 0 ? steps_override() : (Backend::is_gpu ? 100 : 10);
}

}  // namespace kbrain::bench
