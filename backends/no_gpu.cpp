// visible_gpus() of builds without a GPU backend (backends/device_selection.hpp).
#include "backends/device_selection.hpp"

namespace kbrain {

int visible_gpus() { return 0; }

}  // namespace kbrain
