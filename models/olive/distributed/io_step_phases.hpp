#pragma once
// Where the time of a distributed IO step goes (docs/mpi.md, "Phase timings"), summed over the steps of one rank.
// Without phase fences (the default) only pack_s and wait_s are measured, and on an asynchronous backend (CUDA)
// they are not the phases' own times: the pack waits for the previous step's kernels, and the host waits in
// MPI_Wait while the GPU still computes the interior. With phase fences every phase is fenced, so each time is the
// phase's own and exchange_s() is the time a step spends on the halo exchange outside computation.
namespace kbrain::olive {

struct IoStepPhases {
  bool fenced = false;    // the times below are fenced phase times
  double pack_s = 0;      // pack kernel + device -> host staging copy + posting the exchange
  double interior_s = 0;  // interior cells (fenced only)
  double wait_s = 0;      // MPI_Wait (fenced: after the interior kernel has finished)
  double unpack_s = 0;    // host -> device staging copy + unpack kernel (fenced only)
  double border_s = 0;    // border cells (fenced only)
  double step_s = 0;      // all of step() (fenced only)

  double exchange_s() const { return pack_s + wait_s + unpack_s; }
  double compute_s() const { return interior_s + border_s; }
};

}  // namespace kbrain::olive
