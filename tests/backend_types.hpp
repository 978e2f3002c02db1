#pragma once
// Every test templated over backends uses this list: the backends compiled into this build.
#include "backends/enabled_backends.hpp"

#define KBRAIN_TEST_BACKENDS kbrain::EnabledBackends
