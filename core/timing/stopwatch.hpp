#pragma once
#include <chrono>

namespace kbrain {

class Stopwatch {
 public:
  Stopwatch() : t0_(clock::now()) {}
  void restart() { t0_ = clock::now(); }
  double seconds() const { return std::chrono::duration<double>(clock::now() - t0_).count(); }

 private:
  using clock = std::chrono::steady_clock;
  clock::time_point t0_;
};

}  // namespace kbrain
