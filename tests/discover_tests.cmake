# Run by ctest when it reads the test list (TEST_INCLUDE_FILES, written by kbrain_backend_tests in
# tests/CMakeLists.txt), as gtest_discover_tests does: asks the built doctest executable which backends it was compiled
# with and, for `host` and each of them, which suites hold test cases for it; then adds one entry per (suite, backend).
# A pair with no test case gets no entry, so each entry can keep the guard that a filter matching nothing fails.
cmake_policy(VERSION 3.16)  # ctest reads test lists with every policy unset

# kbrain_discover_backends(<exe> <var>): sets <var>_backends (host first, then the compiled-in backends) and, for
# each backend B, <var>_<B> = the suites with test cases for B. Sets <var>_error on failure.
function(kbrain_discover_backends exe var)
  set(error "")
  if(NOT EXISTS "${exe}")
    set(error "${exe} is not built")
  else()
    execute_process(COMMAND "${exe}" --list-backends OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      set(error "`${exe} --list-backends` failed (${rc}): ${err}")
    endif()
  endif()
  if(error)
    set(${var}_error "${error}" PARENT_SCOPE)
    return()
  endif()
  string(REGEX REPLACE "[\r\n]+" ";" backends "host\n${out}")
  list(REMOVE_ITEM backends "")
  foreach(backend IN LISTS backends)
    execute_process(COMMAND "${exe}" --backend=${backend} --list-test-suites --no-colors=true
                    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      set(${var}_error "`${exe} --backend=${backend} --list-test-suites` failed (${rc}): ${err}" PARENT_SCOPE)
      return()
    endif()
    string(REGEX REPLACE "[\r\n]+" ";" lines "${out}")
    set(suites "")
    foreach(line IN LISTS lines)
      if(NOT line STREQUAL "" AND NOT line MATCHES "^(\\[doctest\\]|===)")  # doctest's header and rules
        list(APPEND suites "${line}")
      endif()
    endforeach()
    set(${var}_${backend} "${suites}" PARENT_SCOPE)
  endforeach()
  set(${var}_backends "${backends}" PARENT_SCOPE)
endfunction()

# kbrain_add_backend_tests(<exe> <name> <only_backends> <launcher> <exe_args> <labels> <environment> <properties>):
# one entry per discovered (suite, backend), named <name> with @SUITE@ and @BACKEND@ replaced, running
# `<launcher> <exe> <exe_args> --test-suite=<suite> --backend=<backend>`, labelled with the backend and <labels>.
# <only_backends> (if not empty) keeps those backends only. Discovery runs once per executable.
function(kbrain_add_backend_tests exe name only_backends launcher exe_args labels environment properties)
  string(MAKE_C_IDENTIFIER "${exe}" var)
  set(var "_kbrain_discovered_${var}")
  if(NOT DEFINED ${var}_done)
    kbrain_discover_backends("${exe}" ${var})
    set(${var}_done TRUE)
    foreach(v done error backends)
      set(${var}_${v} "${${var}_${v}}" PARENT_SCOPE)
    endforeach()
    foreach(backend IN LISTS ${var}_backends)
      set(${var}_${backend} "${${var}_${backend}}" PARENT_SCOPE)
    endforeach()
  endif()
  if(${var}_error)
    # Visible as a failing entry rather than as tests that silently vanished.
    get_filename_component(exe_name "${exe}" NAME)
    string(REPLACE "@SUITE@" "${exe_name}" failed "${name}")
    string(REPLACE "@BACKEND@" "discovery" failed "${failed}")
    message(WARNING "kbrain: ${${var}_error}")
    add_test("${failed}" "${KBRAIN_CMAKE_COMMAND}" -E echo "test discovery failed: ${${var}_error}")
    set_tests_properties("${failed}" PROPERTIES FAIL_REGULAR_EXPRESSION "test discovery failed" LABELS "${labels}")
    return()
  endif()
  set(all_suites "")
  foreach(backend IN LISTS ${var}_backends)
    list(APPEND all_suites ${${var}_${backend}})
  endforeach()
  list(REMOVE_DUPLICATES all_suites)
  list(SORT all_suites)
  foreach(suite IN LISTS all_suites)  # grouped by suite: io_model.host, io_model.serial, io_model.openmp, ...
    foreach(backend IN LISTS ${var}_backends)
      if((only_backends AND NOT backend IN_LIST only_backends) OR NOT suite IN_LIST ${var}_${backend})
        continue()
      endif()
      string(REPLACE "@SUITE@" "${suite}" test "${name}")
      string(REPLACE "@BACKEND@" "${backend}" test "${test}")
      add_test("${test}" ${launcher} "${exe}" ${exe_args} --test-suite=${suite} --backend=${backend} --no-intro=true)
      set(test_labels "${backend}" ${labels})
      set_tests_properties("${test}" PROPERTIES LABELS "${test_labels}" ENVIRONMENT "${environment}"
                           FAIL_REGULAR_EXPRESSION "test cases: +0 \\|" ${properties})
    endforeach()
  endforeach()
endfunction()
