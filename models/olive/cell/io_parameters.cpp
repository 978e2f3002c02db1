#include "models/olive/cell/io_parameters.hpp"

#include <stdexcept>

namespace kbrain::olive {

namespace {
const char* const kNames[] = {"reference", nullptr};
}

const char* const* io_parameter_set_names() { return kNames; }

IoParameters io_parameter_set(const std::string& name) {
  if (name == "reference") return IoParameters{};
  throw std::invalid_argument("unknown IO parameter set '" + name +
                              "' (known: reference; published variants are expressed as explicit overrides "
                              "in [model.parameters], see docs/experiment-schema.md)");
}

}  // namespace kbrain::olive
