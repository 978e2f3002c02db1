#pragma once
// The one-step IO kernel with each cell's state staged in team scratch first. The plain kernel loads a cell's
// variables where the compartments use them; with the 40 registers a thread may hold at full occupancy the loads
// cannot all be hoisted, so a thread waits for memory several times per step. Here a thread issues all of its
// cell's loads at once (async_copy: on CUDA cp.async, which needs no registers), waits once, and the compartments
// read the staged values. Results are bit for bit those of IoStepFunctor (tests/test_io_step_staged.cpp): the
// same arithmetic on the same values.
#include <cstddef>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/common/async_copy.hpp"
#include "models/io/io_math.hpp"
#include "models/io/io_state.hpp"
#include "models/io/io_step.hpp"

namespace kbrain::io {

// One cell's step-n variables in team scratch, `stride` values apart: v(VAR, i) whatever i.
template <class Real>
struct StagedCell {
  const Real* first;
  int stride;
  KOKKOS_FORCEINLINE_FUNCTION Real operator()(const int var, int) const { return first[var * stride]; }
};

template <class Exec, class Real, class Gap, int TeamCells = 256>
struct IoStagedStepFunctor {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = Kokkos::View<Real*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr bool kHost = Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;

  IoStepFunctor<Exec, Real, Gap> f;
  int cells = 0;

  static std::size_t scratch_bytes() { return Scratch::shmem_size(NUM_VARS * TeamCells); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Scratch staged(team.team_scratch(0), NUM_VARS * TeamCells);  // [variable][cell of the team]
    const int first_cell = team.league_rank() * TeamCells;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TeamCells), [&](const int t) {
      const int i = first_cell + t;
      if (i >= cells) return;
      Real* mine = staged.data() + t;
      for (int k = 0; k < NUM_VARS; ++k) async_copy(mine + k * TeamCells, &f.cur(k, i));
      async_copy_wait();
      const StagedCell<Real> in{mine, TeamCells};
      const Real vd = in(V_DEND, i), vs = in(V_SOMA, i), va = in(V_AXON, i);
      f.update_cell_from(in, i, vd, vs, va, f.gap.template current<NativeMath>(i, vd, f.cur));
    });
  }
};

// One step of every cell: `step` from make_step_functor. Bounds: the GPU launch bounds (first value >= TeamCells).
template <class Exec, class Real, class Gap, int TeamCells = 256, class Bounds = Kokkos::LaunchBounds<TeamCells, 1536 / TeamCells>>
void launch_staged_step(const IoStepFunctor<Exec, Real, Gap>& step, const int cells) {
  using Functor = IoStagedStepFunctor<Exec, Real, Gap, TeamCells>;
  const int league = (cells + TeamCells - 1) / TeamCells;
  if (league == 0) return;
  // A light-weight launch passes the functor as a kernel argument even above 512 bytes (Kokkos' default there
  // copies it to constant memory and synchronises with the host at every launch).
  const auto policy = Kokkos::Experimental::require(
      Kokkos::TeamPolicy<Exec, Bounds>(league, Functor::kHost ? 1 : TeamCells)
          .set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes())),
      Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  Kokkos::parallel_for("kbrain::io::step_staged", policy, Functor{step, cells});
}

}  // namespace kbrain::io
