// Energy counters (core/energy/energy_meter.hpp): RAPL package counters summed, their subdomains not counted twice,
// a wrapped counter unwrapped, no or unreadable counters reported as "n/a" with NaN; NVML's index under
// CUDA_VISIBLE_DEVICES; the GPU meter either counts or says why not.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/energy/energy_meter.hpp"
#include "tests/test_helpers.hpp"

namespace fs = std::filesystem;
using namespace kbrain;
using kbrain::test::TempDir;

namespace {

void set_counter(const fs::path& domain, double energy_uj, double range_uj) {
  fs::create_directories(domain);
  std::ofstream(domain / "energy_uj") << static_cast<long long>(energy_uj) << "\n";
  std::ofstream(domain / "max_energy_range_uj") << static_cast<long long>(range_uj) << "\n";
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  explicit ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) { setenv(name.c_str(), value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

}  // namespace

TEST_SUITE("energy") {
  TEST_CASE("RAPL: packages summed, subdomains skipped, a wrap unwrapped") {
    TempDir tmp("rapl");
    set_counter(tmp.path / "intel-rapl:0", 1000000, 262143328850);
    set_counter(tmp.path / "intel-rapl:1", 262143000000, 262143328850);  // about to wrap
    set_counter(tmp.path / "intel-rapl:0:0", 5000, 262143328850);        // the core subdomain, inside package 0
    const ScopedEnv root("KBRAIN_RAPL_ROOT", tmp.path.string());
    const EnergyMeter meter(EnergyMeter::Source::Host, 0);
    CHECK(meter.counter() == "rapl (2 packages)");
    CHECK(meter.joules() == doctest::Approx(0.0));
    set_counter(tmp.path / "intel-rapl:0", 3500000, 262143328850);  // +2.5 J
    set_counter(tmp.path / "intel-rapl:1", 671150, 262143328850);    // wrapped: +1.0 J
    set_counter(tmp.path / "intel-rapl:0:0", 9999999999, 262143328850);
    CHECK(meter.joules() == doctest::Approx(3.5).epsilon(1e-9));
  }

  TEST_CASE("RAPL: no counters, or unreadable ones, are n/a") {
    TempDir tmp("rapl_none");
    {
      const ScopedEnv root("KBRAIN_RAPL_ROOT", (tmp.path / "absent").string());
      const EnergyMeter meter(EnergyMeter::Source::Host, 0);
      CHECK(std::isnan(meter.joules()));
      CHECK(meter.counter().rfind("n/a: this machine has no RAPL counters", 0) == 0);
    }
    fs::create_directories(tmp.path / "intel-rapl:0");
    std::ofstream(tmp.path / "intel-rapl:0" / "energy_uj") << "not a number\n";
    const ScopedEnv root("KBRAIN_RAPL_ROOT", tmp.path.string());
    const EnergyMeter meter(EnergyMeter::Source::Host, 0);
    CHECK(std::isnan(meter.joules()));
    CHECK(meter.counter() == "n/a: the RAPL counters are not readable by this user");
  }

  TEST_CASE("NVML: the index under CUDA_VISIBLE_DEVICES; the GPU meter counts or says why not") {
    {
      const ScopedEnv visible("CUDA_VISIBLE_DEVICES", "3,1");
      CHECK(nvml_index(0) == 3);
      CHECK(nvml_index(1) == 1);
      CHECK(nvml_index(2) == 2);
    }
    {
      const ScopedEnv visible("CUDA_VISIBLE_DEVICES", "GPU-5e1b,GPU-77aa");
      CHECK(nvml_index(1) == 1);
    }
    const EnergyMeter meter(EnergyMeter::Source::Gpu, 0);
    const double j = meter.joules();
    if (std::isnan(j))
      CHECK(meter.counter().rfind("n/a: ", 0) == 0);
    else
      CHECK((j >= 0 && meter.counter() == "nvml (GPU 0)"));
  }
}
