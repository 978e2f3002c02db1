#pragma once
// What a reader may do with a bad input: throw its documented error. Anything else escaping (std::bad_alloc, a
// logic_error, an unknown type) is a finding and aborts, so that libFuzzer records the input as a crash.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>

namespace kbrain::fuzz {

// Runs f(); returns normally when f returns or throws one of the `Expected` types (each a std::exception).
template <class... Expected, class F>
void expect_only(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    if ((dynamic_cast<const Expected*>(&e) || ...)) return;
    std::fprintf(stderr, "fuzz: unexpected exception: %s\n", e.what());
    std::abort();
  }
}

}  // namespace kbrain::fuzz
