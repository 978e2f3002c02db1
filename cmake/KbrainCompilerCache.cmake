# Compiler cache: every build of the project (host, sanitizer, fuzz, and CUDA through Kokkos' nvcc_wrapper) compiles
# through ccache when it is installed (scripts/setup_deps.sh installs Debian's). The cache lives outside the clone,
# so a fresh clone on the same machine (CI's) reuses the objects of the last one. Without ccache, or with
# -DKBRAIN_CCACHE=OFF, the build is the same, only uncached. Include it before any target is defined.
#   KBRAIN_CCACHE_DIR      the cache (default: $CCACHE_DIR, else ~/.cache/kbrain-ccache)
#   KBRAIN_CCACHE_MAXSIZE  its bound; ccache evicts the oldest objects beyond it (default 8G: every tree of CI fits)
# Settings go through the launcher's environment rather than a config file, so that they hold for this build only:
# - base_dir = the clone's root, so absolute paths inside it become relative and a clone elsewhere hits the cache;
# - hash_dir off, so -g builds (sanitizer, fuzz) do not key on the build folder's absolute path;
# - compiler_check = content: the patched nvcc_wrapper is written anew (new mtime) in every clone, same bytes.
option(KBRAIN_CCACHE "Compile through ccache when it is installed" ON)
if(DEFINED ENV{CCACHE_DIR})
  set(_kbrain_ccache_default_dir "$ENV{CCACHE_DIR}")
else()
  set(_kbrain_ccache_default_dir "$ENV{HOME}/.cache/kbrain-ccache")
endif()
set(KBRAIN_CCACHE_DIR "${_kbrain_ccache_default_dir}" CACHE PATH "ccache folder (outside the clone)")
set(KBRAIN_CCACHE_MAXSIZE "8G" CACHE STRING "Size bound of the ccache folder")
get_filename_component(_kbrain_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

if(KBRAIN_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(KBRAIN_CCACHE_PROGRAM ccache)
  if(KBRAIN_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER
        "${CMAKE_COMMAND}" -E env
        "CCACHE_DIR=${KBRAIN_CCACHE_DIR}" "CCACHE_MAXSIZE=${KBRAIN_CCACHE_MAXSIZE}"
        "CCACHE_BASEDIR=${_kbrain_root}" CCACHE_NOHASHDIR=1 CCACHE_COMPILERCHECK=content
        "${KBRAIN_CCACHE_PROGRAM}")
    message(STATUS "kbrain: compiling through ccache (${KBRAIN_CCACHE_DIR}, at most ${KBRAIN_CCACHE_MAXSIZE})")
  else()
    message(STATUS "kbrain: ccache not found, compiling without a cache (scripts/setup_deps.sh installs it)")
  endif()
endif()
