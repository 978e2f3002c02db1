#pragma once
// A one-line progress bar with ETA on stderr, drawn only when stderr is a terminal (silent in CI and pipes).
#include <cstdint>
#include <string>

namespace kbrain {

class ProgressBar {
 public:
  ProgressBar(std::string label, std::int64_t total);
  ~ProgressBar();
  void update(std::int64_t done);  // cheap: redraws at most ~10 times a second
  void finish();

 private:
  std::string label_;
  std::int64_t total_;
  bool enabled_;
  double start_s_, last_draw_s_ = -1;
  bool finished_ = false;
};

}  // namespace kbrain
