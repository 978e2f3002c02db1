# Kokkos Kernels: dense BLAS/LAPACK on Kokkos views (GEMM of the Galbraith applications). Its calls dispatch to
# cuBLAS for CUDA views and to the host BLAS for host views, so kbrain writes no GEMM of its own.
# An installed KokkosKernels is preferred; otherwise Kokkos Kernels 3.4.01 from Debian's trilinos source
# (scripts/fetch_kokkos.sh puts it in .deps/kokkos-kernels) is built with this project, against the same Kokkos.
# Its explicit instantiation is off: the few kernels kbrain calls are compiled where they are used.
# Defines kbrain_linalg (link it to use KokkosBlas) and KBRAIN_HOST_BLAS (what the host BLAS is, for run.json).
set(KBRAIN_KOKKOS_KERNELS_SOURCE "${CMAKE_SOURCE_DIR}/.deps/kokkos-kernels" CACHE PATH
    "Kokkos Kernels source used when no installed KokkosKernels is found (scripts/fetch_kokkos.sh provides it)")

# The host BLAS: OpenBLAS when present (threads set per backend at run time, core/linalg/host_blas.cpp), else any
# BLAS CMake finds. Debian's OpenBLAS lives in an alternatives folder; search it by name so an unpacked sysroot works.
find_library(KBRAIN_OPENBLAS openblas PATH_SUFFIXES openblas-pthread openblas-openmp openblas-serial
             lib/x86_64-linux-gnu/openblas-pthread x86_64-linux-gnu/openblas-pthread)
if(KBRAIN_OPENBLAS)
  get_filename_component(_kbrain_blas_dir "${KBRAIN_OPENBLAS}" DIRECTORY)
  set(KBRAIN_HOST_BLAS "OpenBLAS (${KBRAIN_OPENBLAS})")
  set(_kbrain_blas_libs openblas)
else()
  find_package(BLAS)
  find_package(LAPACK)
  if(NOT BLAS_FOUND OR NOT LAPACK_FOUND)
    message(FATAL_ERROR "kbrain: no host BLAS/LAPACK found; run scripts/setup_deps.sh (Debian: libopenblas-dev liblapack-dev)")
  endif()
  set(KBRAIN_HOST_BLAS "BLAS (${BLAS_LIBRARIES})")
endif()

find_package(KokkosKernels QUIET)
if(KokkosKernels_FOUND)
  message(STATUS "kbrain: using installed KokkosKernels ${KokkosKernels_VERSION} (${KokkosKernels_DIR})")
  set(KBRAIN_KOKKOS_KERNELS_ORIGIN "installed ${KokkosKernels_VERSION}")
else()
  if(NOT EXISTS "${KBRAIN_KOKKOS_KERNELS_SOURCE}/CMakeLists.txt")
    message(FATAL_ERROR "kbrain: no installed KokkosKernels and no source at '${KBRAIN_KOKKOS_KERNELS_SOURCE}'.\n"
                        "Run scripts/fetch_kokkos.sh, or pass -DKokkosKernels_ROOT=<install prefix>.")
  endif()
  if(DEFINED Kokkos_VERSION AND Kokkos_VERSION VERSION_GREATER_EQUAL 3.5)
    message(FATAL_ERROR "kbrain: the bundled Kokkos Kernels is 3.4.01 and the installed Kokkos is ${Kokkos_VERSION}; "
                        "install the matching KokkosKernels and pass -DKokkosKernels_ROOT=<prefix>")
  endif()
  foreach(_t DOUBLE FLOAT COMPLEX_DOUBLE COMPLEX_FLOAT ORDINAL_INT ORDINAL_INT64_T OFFSET_INT OFFSET_SIZE_T
             LAYOUTLEFT LAYOUTRIGHT EXECSPACE_CUDA EXECSPACE_OPENMP EXECSPACE_SERIAL EXECSPACE_THREADS
             MEMSPACE_CUDASPACE MEMSPACE_CUDAUVMSPACE MEMSPACE_HOSTSPACE)
    set(KokkosKernels_INST_${_t} OFF CACHE BOOL "" FORCE)
  endforeach()
  # The Fortran symbol convention of the BLAS (lower case, trailing underscore: gfortran's, OpenBLAS' and the reference
  # BLAS' on Linux). Given here so that Kokkos Kernels does not need a Fortran compiler to find it out.
  if(NOT DEFINED F77_BLAS_MANGLE)
    set(F77_BLAS_MANGLE "(name,NAME) name ## _")
  endif()
  set(KokkosKernels_ENABLE_TPL_BLAS ON CACHE BOOL "" FORCE)
  set(KokkosKernels_ENABLE_TPL_LAPACK ON CACHE BOOL "" FORCE)
  if(KBRAIN_OPENBLAS)
    set(BLAS_LIBRARIES openblas CACHE STRING "" FORCE)
    set(BLAS_LIBRARY_DIRS "${_kbrain_blas_dir}" CACHE STRING "" FORCE)
    set(LAPACK_LIBRARIES openblas CACHE STRING "" FORCE)
    set(LAPACK_LIBRARY_DIRS "${_kbrain_blas_dir}" CACHE STRING "" FORCE)
  endif()
  set(KokkosKernels_ENABLE_TPL_CUBLAS ${KBRAIN_ENABLE_CUDA} CACHE BOOL "" FORCE)
  set(KokkosKernels_ENABLE_TPL_CUSPARSE OFF CACHE BOOL "" FORCE)
  set(KokkosKernels_ENABLE_TESTS OFF CACHE BOOL "" FORCE)
  set(KokkosKernels_ENABLE_EXAMPLES OFF CACHE BOOL "" FORCE)
  add_subdirectory("${KBRAIN_KOKKOS_KERNELS_SOURCE}" "${CMAKE_BINARY_DIR}/_kokkos_kernels" EXCLUDE_FROM_ALL)
  file(STRINGS "${KBRAIN_KOKKOS_KERNELS_SOURCE}/master_history.txt" _kk_hist REGEX "^tag:")
  list(GET _kk_hist -1 _kk_last)
  string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" _kk_v "${_kk_last}")
  set(KBRAIN_KOKKOS_KERNELS_ORIGIN "bundled ${_kk_v}")
  message(STATUS "kbrain: building bundled Kokkos Kernels ${_kk_v} (no ETI; TPLs BLAS/LAPACK, cuBLAS: ${KBRAIN_ENABLE_CUDA})")
endif()

add_library(kbrain_linalg INTERFACE)
target_link_libraries(kbrain_linalg INTERFACE Kokkos::kokkoskernels)
if(KBRAIN_OPENBLAS)
  target_link_libraries(kbrain_linalg INTERFACE "${KBRAIN_OPENBLAS}")
  target_compile_definitions(kbrain_linalg INTERFACE KBRAIN_HAVE_OPENBLAS=1)
endif()

# stb (Debian libstb-dev): reads BMP/PNG/PPM images and writes PNG.
find_path(KBRAIN_STB_INCLUDE stb_image.h PATH_SUFFIXES stb)
find_library(KBRAIN_STB_LIBRARY stb)
if(NOT KBRAIN_STB_INCLUDE OR NOT KBRAIN_STB_LIBRARY)
  message(FATAL_ERROR "kbrain: stb (image files) not found; run scripts/setup_deps.sh (Debian: libstb-dev)")
endif()
add_library(kbrain_stb INTERFACE)
target_include_directories(kbrain_stb SYSTEM INTERFACE ${KBRAIN_STB_INCLUDE})
target_link_libraries(kbrain_stb INTERFACE ${KBRAIN_STB_LIBRARY})
