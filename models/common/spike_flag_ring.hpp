#pragma once
// Spike flags of recent steps kept on the device for the spike files: each step copies its per-cell flags (one byte
// per cell) into the next slot of a ring, with no host synchronisation; when the ring is full (or at the end) the
// runner drains it in one copy and gets the events (updates done, cell) in order. Slots: about 64 MiB of flags,
// between 1 and 4096 steps. For models whose step leaves a flag array (AdEx crossings, Galbraith spikes).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

namespace kbrain {

template <class Exec>
class SpikeFlagRing {
 public:
  using Mem = typename Exec::memory_space;
  using Events = std::vector<std::pair<std::int64_t, std::int64_t>>;

  SpikeFlagRing() = default;
  explicit SpikeFlagRing(std::int64_t cells)
      : cells_(cells), slots_(std::clamp<std::int64_t>((64 << 20) / std::max<std::int64_t>(1, cells), 1, 4096)),
        ring_("spike_flag_ring", slots_, cells) {}

  bool active() const { return slots_ > 0; }
  bool full() const { return slots_ > 0 && used_ == slots_; }

  // Copies `flags` (any integer type, non-zero = spike) of the step that ends with `updates_done` updates. No drain
  // in between: at most `slots` captures (the runner drains when full()).
  template <class FlagView>
  void capture(const FlagView& flags, std::int64_t updates_done) {
    auto slot = Kokkos::subview(ring_, used_, Kokkos::ALL());
    Kokkos::parallel_for("kbrain::spike_flag_ring", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, cells_),
                         KOKKOS_LAMBDA(const std::int64_t j) { slot(j) = flags(j) ? 1 : 0; });
    steps_.push_back(updates_done);
    ++used_;
  }

  Events drain() {
    Events events;
    if (used_ == 0) return events;
    const auto filled = Kokkos::subview(ring_, std::pair<std::int64_t, std::int64_t>(0, used_), Kokkos::ALL());
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), filled);
    for (std::int64_t s = 0; s < used_; ++s)
      for (std::int64_t j = 0; j < cells_; ++j)
        if (host(s, j)) events.emplace_back(steps_[static_cast<std::size_t>(s)], j);
    used_ = 0;
    steps_.clear();
    return events;
  }

 private:
  std::int64_t cells_ = 0, slots_ = 0, used_ = 0;
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Mem> ring_;
  std::vector<std::int64_t> steps_;
};

}  // namespace kbrain
