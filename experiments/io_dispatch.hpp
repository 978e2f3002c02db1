#pragma once
#include <string>

#include "core/config/experiment_config.hpp"
#include "experiments/io_run_plan.hpp"

namespace kbrain {

// run_io<Backend, Real> for a backend chosen by name at run time (instantiated once, in io_dispatch.cpp).
IoRunResult run_io_on(const std::string& backend, Precision precision, const IoRunPlan& plan);

}  // namespace kbrain
