// ProgressBar: "label [#####.....] 45% 1.2 s elapsed, ETA 1.5 s" redrawn in place on stderr (terminals only).
#include "core/timing/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace kbrain {
namespace {

constexpr int kBarWidth = 30;
constexpr double kMinRedrawInterval_s = 0.1;  // ~10 redraws a second at most

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "0.4 s", "12.3 s", "2 min 05 s", "1 h 02 min"
std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 60) return fmt::format("{:.1f} s", s);
  const auto total = static_cast<long long>(s + 0.5);
  if (total < 3600) return fmt::format("{} min {:02} s", total / 60, total % 60);
  return fmt::format("{} h {:02} min", total / 3600, (total % 3600) / 60);
}

bool progress_wanted() { return isatty(STDERR_FILENO) == 1 && std::getenv("KBRAIN_NO_PROGRESS") == nullptr; }

}  // namespace

ProgressBar::ProgressBar(std::string label, std::int64_t total)
    : label_(std::move(label)), total_(total), enabled_(total > 0 && progress_wanted()), start_s_(now_s()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(std::int64_t done) {
  if (!enabled_ || finished_) return;
  done = std::clamp<std::int64_t>(done, 0, total_);
  const double now = now_s();
  // The final state is always drawn, so that a bar completed just before finish() shows 100%.
  if (done < total_ && last_draw_s_ >= 0 && now - last_draw_s_ < kMinRedrawInterval_s) return;
  last_draw_s_ = now;

  const double fraction = static_cast<double>(done) / static_cast<double>(total_);
  const int filled = static_cast<int>(fraction * kBarWidth);
  const double elapsed = now - start_s_;
  const std::string eta =
      done > 0 ? format_duration(elapsed * static_cast<double>(total_ - done) / static_cast<double>(done)) : "?";
  // \r returns to the line start, ESC[K clears what a longer previous line left behind.
  const std::string line = fmt::format("\r{} [{}{}] {:3d}% {} elapsed, ETA {}\x1b[K", label_, std::string(filled, '#'),
                                       std::string(kBarWidth - filled, '.'), static_cast<int>(fraction * 100),
                                       format_duration(elapsed), eta);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (finished_) return;
  finished_ = true;
  if (enabled_ && last_draw_s_ >= 0) {
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }
}

}  // namespace kbrain
