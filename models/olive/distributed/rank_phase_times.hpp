#pragma once
// One rank's phase times and sizes in a distributed IO run (docs/mpi.md, "Phase timings"), and their flat form for
// gathering them to rank 0 (one gather of doubles).
#include <algorithm>
#include <array>
#include <cstdint>

#include "models/olive/distributed/io_step_phases.hpp"

namespace kbrain::olive {

struct RankPhaseTimes {
  int rank = 0;
  bool phase_timing = false;  // fenced phases (kbrain run --phase-timing): the fields marked (f) are measured
  double generate_s = 0, plan_s = 0, setup_s = 0, output_s = 0, wall_s = 0;
  double simulate_s = 0;       // this rank's step loop without output
  double compute_s = 0;        // unfenced: simulate - exchange wait; fenced: interior + border kernels
  double exchange_wait_s = 0;  // MPI_Wait (fenced: after the interior kernel has finished)
  double pack_post_s = 0;      // pack + device -> host staging copy + posting
  double unpack_s = 0;         // (f) host -> device staging copy + unpack
  double interior_s = 0, border_s = 0;  // (f)
  double exchange_s = 0;       // (f) pack_post + wait + unpack
  double exchange_fraction = 0;  // (f) exchange_s / simulate_s
  std::int64_t cells = 0, interior = 0, halo = 0, neighbours = 0, junctions = 0, sent = 0;

  // The compute/exchange split of this rank's loop time `simulate` (the fenced phases' own times with phase timing).
  void split_loop(const IoStepPhases& ph, double simulate) {
    exchange_wait_s = ph.wait_s;
    pack_post_s = ph.pack_s;
    simulate_s = simulate;
    phase_timing = ph.fenced;
    if (ph.fenced) {
      interior_s = ph.interior_s;
      border_s = ph.border_s;
      unpack_s = ph.unpack_s;
      compute_s = ph.compute_s();
      exchange_s = ph.exchange_s();
      exchange_fraction = simulate > 0 ? exchange_s / simulate : 0.0;
    } else {
      compute_s = simulate - std::min(simulate, exchange_wait_s);
    }
  }

  static constexpr int kNumbers = 22;
  std::array<double, kNumbers> to_array() const {
    return {double(rank), phase_timing ? 1.0 : 0.0, generate_s, plan_s, setup_s, output_s, wall_s, simulate_s,
            compute_s, exchange_wait_s, pack_post_s, unpack_s, interior_s, border_s, exchange_s, exchange_fraction,
            double(cells), double(interior), double(halo), double(neighbours), double(junctions), double(sent)};
  }
  static RankPhaseTimes from_array(const double* a) {
    RankPhaseTimes t;
    t.rank = int(a[0]);
    t.phase_timing = a[1] != 0.0;
    t.generate_s = a[2], t.plan_s = a[3], t.setup_s = a[4], t.output_s = a[5], t.wall_s = a[6], t.simulate_s = a[7];
    t.compute_s = a[8], t.exchange_wait_s = a[9], t.pack_post_s = a[10], t.unpack_s = a[11], t.interior_s = a[12];
    t.border_s = a[13], t.exchange_s = a[14], t.exchange_fraction = a[15];
    t.cells = std::int64_t(a[16]), t.interior = std::int64_t(a[17]), t.halo = std::int64_t(a[18]);
    t.neighbours = std::int64_t(a[19]), t.junctions = std::int64_t(a[20]), t.sent = std::int64_t(a[21]);
    return t;
  }
};

}  // namespace kbrain::olive
