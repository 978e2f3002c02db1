# Sourced by the build and test scripts: the CMake generator and the phase clock.

# cmake_generator BUILD_DIR: prints "-G Ninja" when ninja is installed and BUILD_DIR is new or already a Ninja tree
# (a tree configured with another generator keeps it: CMake refuses to switch in place).
cmake_generator() {
  local cache="$1/CMakeCache.txt"
  command -v ninja >/dev/null || return 0
  if [ ! -f "$cache" ] || grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then echo "-G Ninja"; fi
}

# phase NAME COMMAND...: runs COMMAND and, when KBRAIN_PHASE_LOG names a file, appends "NAME<TAB>SECONDS<TAB>rc"
# to it (.ci/run prints that file as its phase table). The command's exit status is returned unchanged.
phase() {
  local name="$1" start rc=0
  shift
  start=$(date +%s.%N)
  "$@" || rc=$?
  if [ -n "${KBRAIN_PHASE_LOG:-}" ]; then
    printf '%s\t%.0f\t%s\n' "$name" "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" "$rc" >>"$KBRAIN_PHASE_LOG"
  fi
  return "$rc"
}
