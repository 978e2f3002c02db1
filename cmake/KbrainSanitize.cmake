# KBRAIN_SANITIZE: a comma-separated list for -fsanitize= (e.g. address,undefined), applied to every target of the
# build, the bundled Kokkos included (so a container overflow inside a Kokkos View copy is seen too). GCC or Clang,
# host backends only. docs/testing.md says how CI uses it (scripts/sanitize.sh; `thread`: scripts/race_check.sh, with
# clang, whose -fopenmp links LLVM's libomp, which Archer makes visible to ThreadSanitizer).
set(KBRAIN_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined (empty: none)")
if(KBRAIN_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "kbrain: KBRAIN_SANITIZE needs GCC or Clang (the compiler is ${CMAKE_CXX_COMPILER_ID})")
  endif()
  if(KBRAIN_ENABLE_CUDA)
    message(FATAL_ERROR "kbrain: KBRAIN_SANITIZE is for host builds (device code: compute-sanitizer, docs/testing.md)")
  endif()
  if(KBRAIN_SANITIZE MATCHES "thread" AND KBRAIN_SANITIZE MATCHES "address|leak|memory")
    message(FATAL_ERROR "kbrain: KBRAIN_SANITIZE: thread cannot be combined with address, leak or memory")
  endif()
  if(KBRAIN_SANITIZE MATCHES "thread" AND KBRAIN_ENABLE_OPENMP AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # GCC's libgomp is not instrumented: its barriers are invisible to TSan and every parallel region would report.
    message(WARNING "kbrain: KBRAIN_SANITIZE=thread with OpenMP needs clang (libomp + Archer); expect false reports")
  endif()
  # Frame pointers give the reports whole stacks at -O1.
  set(_kbrain_san_flags -fsanitize=${KBRAIN_SANITIZE} -fno-omit-frame-pointer)
  if(KBRAIN_SANITIZE MATCHES "undefined")
    # A UBSan report must fail the test that triggers it, not scroll past in its log.
    list(APPEND _kbrain_san_flags -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${_kbrain_san_flags})
  add_link_options(-fsanitize=${KBRAIN_SANITIZE})
  message(STATUS "kbrain: sanitizers ${KBRAIN_SANITIZE}")
endif()
