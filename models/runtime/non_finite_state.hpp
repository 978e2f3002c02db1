#pragma once
// The error of a run whose state stopped being finite (NaN or ±inf): the runner stops at the check that found it,
// after writing what was recorded so far, and the run is never marked complete.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kbrain {

struct NonFiniteState : std::runtime_error {
  NonFiniteState(const std::string& what, std::int64_t step) : std::runtime_error(what), step(step) {}
  std::int64_t step = 0;  // the step after which the check found it
};

}  // namespace kbrain
