#pragma once
// Options of the doctest mains (test_main.cpp, test_mpi_main.cpp) that let ctest run one suite on one backend, so
// that a red ctest line names the backend that broke (tests/CMakeLists.txt, tests/discover_tests.cmake):
//   --backend=NAME   NAME = a compiled-in backend's `name` (serial, openmp, cuda): only the test cases templated on
//                    that backend over KBRAIN_TEST_BACKENDS (doctest names them "<name><kbrain::SerialBackend>");
//                    NAME = host: only the test cases templated on no backend. Any other NAME is an error.
//   --list-backends  prints the compiled-in backends' names, one a line.
// Queries (--list-backends and doctest's --list-*, --count, --help, --version) start neither MPI nor Kokkos, so that
// ctest can list the entries of a CUDA build on a machine without a GPU.
// Include after <doctest/doctest.h>.
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <tuple>

#include "tests/backend_types.hpp"

namespace kbrain::test {

namespace detail {
template <class Tuple>
struct ForEachBackend;
template <class... Bs>
struct ForEachBackend<std::tuple<Bs...>> {
  // f(name, doctest's spelling of the type: the suffix of the templated test cases' names)
  template <class F>
  static void apply(F&& f) {
    (f(std::string(Bs::name), std::string(doctest::toString<Bs>().c_str())), ...);
  }
};
using TestBackends = ForEachBackend<KBRAIN_TEST_BACKENDS>;

// The name of a command-line option without its dashes, doctest's "dt-" prefix and "=value" ("" if not an option).
inline std::string option_name(const char* arg) {
  std::string a = arg;
  const auto start = a.find_first_not_of('-');
  if (start == 0 || start == std::string::npos) return "";
  a.erase(0, start);
  if (a.rfind("dt-", 0) == 0) a.erase(0, 3);
  return a.substr(0, a.find('='));
}

inline bool has_flag(int argc, char** argv, std::initializer_list<const char*> names) {
  for (int i = 1; i < argc; ++i)
    for (const char* n : names)
      if (option_name(argv[i]) == n) return true;
  return false;
}

// The value of --NAME=VALUE, or nullptr.
inline const char* option_value(int argc, char** argv, const std::string& name) {
  for (int i = 1; i < argc; ++i)
    if (option_name(argv[i]) == name && std::strchr(argv[i], '=')) return std::strchr(argv[i], '=') + 1;
  return nullptr;
}
}  // namespace detail

// True when the command line only asks for a listing, a count, help or the version: no test runs.
inline bool query_only(int argc, char** argv) {
  return detail::has_flag(argc, argv, {"list-backends", "list-test-cases", "ltc", "list-test-suites", "lts",
                                       "list-reporters", "lr", "count", "c", "help", "h", "?", "version", "v"});
}

// Applies --backend and answers --list-backends. Returns -1 to go on, else the exit code of main.
inline int apply_backend_options(int argc, char** argv, doctest::Context& ctx) {
  if (detail::has_flag(argc, argv, {"list-backends"})) {
    detail::TestBackends::apply([](const std::string& name, const std::string&) { std::printf("%s\n", name.c_str()); });
    return 0;
  }
  const char* wanted = detail::option_value(argc, argv, "backend");
  if (!wanted) return -1;
  const std::string backend = wanted;
  bool known = backend == "host";
  std::string names = "host";
  detail::TestBackends::apply([&](const std::string& name, const std::string& type) {
    const std::string pattern = "*<" + type + ">";
    if (backend == "host") ctx.addFilter("test-case-exclude", pattern.c_str());
    if (backend == name) {
      ctx.addFilter("test-case", pattern.c_str());
      known = true;
    }
    names += ", " + name;
  });
  if (known) return -1;
  std::fprintf(stderr, "--backend=%s: not a backend of this build (%s)\n", backend.c_str(), names.c_str());
  return 2;
}

}  // namespace kbrain::test
