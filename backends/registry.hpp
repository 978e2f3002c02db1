#pragma once
// Run-time access to the compiled-in backends: names, hardware, and dispatch from a name to a traits type.
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "backends/enabled_backends.hpp"
#include "core/type_list.hpp"

namespace kbrain {

// Calls f(TypeTag<Backend>{}) for every enabled backend, in list order (serial, openmp, cuda).
template <class F>
void for_each_backend(F&& f) {
  for_each_type<EnabledBackends>(f);
}

inline std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for_each_backend([&](auto tag) { names.emplace_back(decltype(tag)::type::name); });
  return names;
}

inline bool has_backend(const std::string& name) {
  for (auto& n : backend_names())
    if (n == name) return true;
  return false;
}

struct UnknownBackend : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Calls f(TypeTag<Backend>{}) for the backend called `name`; throws UnknownBackend listing the compiled ones.
template <class F>
void with_backend(const std::string& name, F&& f) {
  bool found = false;
  for_each_backend([&](auto tag) {
    if (!found && name == decltype(tag)::type::name) {
      found = true;
      f(tag);
    }
  });
  if (!found) {
    std::string list;
    for (auto& n : backend_names()) list += (list.empty() ? "" : ", ") + n;
    throw UnknownBackend("unknown or not compiled-in backend '" + name + "' (this build has: " + list + ")");
  }
}

}  // namespace kbrain
