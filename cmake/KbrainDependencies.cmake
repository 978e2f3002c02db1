# Third-party libraries come from the system (scripts/setup_deps.sh installs the Debian packages).
find_package(fmt REQUIRED)
find_package(Threads REQUIRED)

find_path(KBRAIN_CLI11_INCLUDE CLI/CLI.hpp)
find_path(KBRAIN_RANDOM123_INCLUDE Random123/philox.h)
foreach(_v KBRAIN_CLI11_INCLUDE KBRAIN_RANDOM123_INCLUDE)
  if(NOT ${_v})
    message(FATAL_ERROR "kbrain: header for ${_v} not found; run scripts/setup_deps.sh "
                        "(Debian: libcli11-dev librandom123-dev)")
  endif()
endforeach()

include(KbrainTomlpp)  # kbrain_tomlpp: a patched copy of the installed headers (faults found by fuzzing)
add_library(kbrain_cli11 INTERFACE)
target_include_directories(kbrain_cli11 SYSTEM INTERFACE ${KBRAIN_CLI11_INCLUDE})
add_library(kbrain_random123 INTERFACE)
target_include_directories(kbrain_random123 SYSTEM INTERFACE ${KBRAIN_RANDOM123_INCLUDE})

if(KBRAIN_BUILD_TESTS)
  find_path(KBRAIN_DOCTEST_INCLUDE doctest/doctest.h)
  if(NOT KBRAIN_DOCTEST_INCLUDE)
    message(FATAL_ERROR "kbrain: doctest not found (Debian: doctest-dev)")
  endif()
  add_library(kbrain_doctest INTERFACE)
  target_include_directories(kbrain_doctest SYSTEM INTERFACE ${KBRAIN_DOCTEST_INCLUDE})
endif()
if(KBRAIN_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

# Host-only targets: with nvcc_wrapper as the C++ compiler, compile them with the host compiler alone.
function(kbrain_host_only target)
  if(CMAKE_CXX_COMPILER MATCHES "nvcc_wrapper")
    target_compile_options(${target} PRIVATE --host-only)
  endif()
endfunction()
