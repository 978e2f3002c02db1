#pragma once
// The inferior-olive model split over MPI ranks (`kbrain run` under mpirun, docs/mpi.md): the IO model (schema,
// parameters, plan, compare columns) whose simulation is one rank's part of the network (olive_mpi_run.hpp). Not in
// models/registry.hpp: it serves the kind "io" only where cmd_run_mpi.cpp chooses it. Only compiled with
// KBRAIN_ENABLE_MPI.
#include "models/olive/distributed/olive_mpi_plan.hpp"
#include "models/olive/distributed/olive_mpi_run.hpp"
#include "models/olive/olive_model.hpp"

namespace kbrain::olive {

struct OliveMpiModel : OliveModel {
  using Plan = OliveMpiPlan;
  template <class Backend, class Real>
  using Simulation = OliveMpiRun<Backend, Real>;

  // The single-process plan; the plan change of the run sets the ranks (comm) and their options.
  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) {
    Plan p;
    static_cast<OlivePlan&>(p) = make_olive_plan(cfg, r);
    return p;
  }
};

}  // namespace kbrain::olive
