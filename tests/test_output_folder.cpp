// Output folders (core/recorders/output_folder.hpp): a run writes beside its folder and replaces an earlier result
// only once it has finished; a failed or interrupted run keeps its own folder, marked incomplete; a folder being
// written is locked. The command-line side (a real SIGINT, a concurrent process) is tests/cli/output_folder.sh.
#include <doctest/doctest.h>

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/config/experiment_config.hpp"
#include "core/process/stop_signals.hpp"
#include "core/recorders/output_folder.hpp"
#include "experiments/program/commands.hpp"
#include "models/runtime/non_finite_state.hpp"
#include "models/runtime/run_interrupted.hpp"
#include "tests/io_test_support.hpp"
#include "tests/test_helpers.hpp"

namespace {

namespace fs = std::filesystem;
using kbrain::test::contains;
using kbrain::test::kept_folder;
using kbrain::test::read_text;

kbrain::RunOptions short_run(const fs::path& experiment, const fs::path& out) {
  kbrain::RunOptions o;
  o.experiment = experiment.string();
  o.backend = "serial";
  o.out_dir = out.string();
  o.no_plots = true;
  return o;
}

fs::path all2all10() { return fs::path(KBRAIN_SOURCE_DIR) / "experiments" / "io_all2all10.toml"; }

}  // namespace

TEST_SUITE("output_folder") {
  TEST_CASE("written beside the target, moved into place by publish, locked until released") {
    const kbrain::test::TempDir tmp("outdir");
    const fs::path target = tmp.path / "result";
    {
      kbrain::OutputFolder folder(target);
      CHECK(folder.work() == tmp.path / ("result.partial-" + std::to_string(::getpid())));
      CHECK(fs::is_directory(folder.work()));
      CHECK(fs::is_empty(folder.work()));
      CHECK_FALSE(fs::exists(target));
      CHECK(fs::exists(tmp.path / "result.lock"));
      // A second writer of the same target is refused while the first holds the lock.
      CHECK_THROWS_WITH_AS(kbrain::OutputFolder{target}, doctest::Contains("another kbrain run is writing"),
                           kbrain::ConfigError);
      std::ofstream(folder.work() / "run.json") << "{}\n";
      folder.publish();
      CHECK(folder.published());
      CHECK(fs::exists(target / "run.json"));
      CHECK_FALSE(fs::exists(tmp.path / ("result.partial-" + std::to_string(::getpid()))));
    }
    CHECK_FALSE(fs::exists(tmp.path / "result.lock"));  // released and removed
    kbrain::OutputFolder again(target);                  // and free for the next run
    CHECK(fs::exists(target / "run.json"));              // which replaces it only when it publishes
  }

  TEST_CASE("only a missing, empty or kbrain output folder is replaced") {
    const kbrain::test::TempDir tmp("outdir_refuse");
    fs::create_directories(tmp.path / "empty");
    CHECK(kbrain::replaceable_output(tmp.path / "missing"));
    CHECK(kbrain::replaceable_output(tmp.path / "empty"));
    tmp.write("file.txt", "data\n");
    CHECK_FALSE(kbrain::replaceable_output(tmp.path / "file.txt"));
    fs::create_directories(tmp.path / "notes");
    tmp.write("notes/todo.txt", "mine\n");
    CHECK_FALSE(kbrain::replaceable_output(tmp.path / "notes"));
    CHECK_THROWS_WITH_AS(kbrain::OutputFolder{tmp.path / "notes"}, doctest::Contains("not a kbrain output folder"),
                         kbrain::ConfigError);
    CHECK(read_text(tmp.path / "notes" / "todo.txt") == "mine\n");
    CHECK_FALSE(fs::exists(tmp.path / "notes.lock"));
    tmp.write("notes/run.json", "{}\n");
    CHECK(kbrain::replaceable_output(tmp.path / "notes"));
    CHECK_THROWS_AS(kbrain::OutputFolder{fs::path("/")}, kbrain::ConfigError);
  }

  TEST_CASE("a run that blows up leaves the complete earlier result in its folder as it was") {
    const kbrain::test::TempDir tmp("outdir_failed");
    const fs::path out = tmp.path / "out";
    REQUIRE(kbrain::cmd_run(short_run(all2all10(), out)) == 0);
    const std::string manifest = read_text(out / "run.json"), trace = read_text(out / "trace.csv");
    REQUIRE(contains(manifest, "\"complete\": true"));
    std::string message;
    try {
      kbrain::cmd_run(short_run(kbrain::test::blow_up_experiment(tmp.path), out));
    } catch (const kbrain::NonFiniteState& e) {
      message = e.what();
    }
    REQUIRE(contains(message, "is NaN or infinite"));
    CHECK(read_text(out / "run.json") == manifest);
    CHECK(read_text(out / "trace.csv") == trace);
    const fs::path kept = kept_folder(out);
    CHECK(contains(message, kept.string()));
    CHECK(contains(message, "the earlier result in " + out.string() + " is untouched"));
    CHECK(contains(read_text(kept / "run.json"), "\"complete\": false"));
    CHECK_FALSE(fs::exists(tmp.path / "out.lock"));
  }

  TEST_CASE("a second run replaces the folder as a whole: no file of the first is left beside it") {
    const kbrain::test::TempDir tmp("outdir_replace");
    const fs::path out = tmp.path / "out";
    const std::string head = "name = \"cuba_small\"\n[model]\nkind = \"lif\"\nparameter_set = \"cuba\"\n"
                             "[simulation]\nsteps = 100\n[network]\nneurons = 400\n[record]\nspikes = true\ncsv = true\n";
    const fs::path with_binary = tmp.write("binary.toml", head + "binary = true\n");
    const fs::path csv_only = tmp.write("csv.toml", head + "binary = false\n");
    REQUIRE(kbrain::cmd_run(short_run(with_binary, out)) == 0);
    REQUIRE(fs::exists(out / "spikes.kbs"));
    REQUIRE(kbrain::cmd_run(short_run(csv_only, out)) == 0);
    CHECK(contains(read_text(out / "run.json"), "\"complete\": true"));
    CHECK(fs::exists(out / "spikes.csv"));
    CHECK_FALSE(fs::exists(out / "spikes.kbs"));  // the first run's, which this one did not write
    for (const auto& entry : fs::directory_iterator(tmp.path)) {  // nothing moved aside or kept is left
      CAPTURE(entry.path());
      CHECK(entry.path().filename().string().rfind("out.", 0) != 0);
    }
  }

  TEST_CASE("a stop signal ends the run after the step under way, incomplete, with what it recorded") {
    const kbrain::test::TempDir tmp("outdir_signal");
    const fs::path out = tmp.path / "out";
    kbrain::catch_stop_signals();
    std::raise(SIGTERM);  // recorded by the handler: the run stops after its first step
    REQUIRE(kbrain::stop_signal() == SIGTERM);
    int code = 0;
    std::string message;
    try {
      kbrain::cmd_run(short_run(all2all10(), out));
    } catch (const kbrain::RunInterrupted& e) {
      code = e.exit_code();
      message = e.what();
    }
    kbrain::clear_stop_signal();
    CHECK(code == 128 + SIGTERM);
    CHECK(contains(message, "interrupted by SIGTERM after step 1 of "));
    CHECK_FALSE(fs::exists(out));
    const fs::path kept = kept_folder(out);
    CHECK(contains(message, kept.string()));
    const std::string manifest = read_text(kept / "run.json");
    CHECK(contains(manifest, "\"complete\": false"));
    CHECK(contains(manifest, "\"failed\": \"interrupted by SIGTERM after step 1 of "));
    CHECK(kbrain::test::count_lines(kept / "trace.csv") == 2);  // the header and the one step's sample
  }

  TEST_CASE("compare: an interrupted comparison keeps its own folder; the earlier tables stay as they were") {
    const kbrain::test::TempDir tmp("outdir_compare");
    const fs::path out = tmp.path / "cmp";
    kbrain::CompareOptions o;
    o.experiment = (fs::path(KBRAIN_SOURCE_DIR) / "experiments" / "io_mesh_sweep.toml").string();
    o.backends = {"serial"};
    o.precisions = {"double"};
    o.sizes = {8};
    o.steps = 50;
    o.out_dir = out.string();
    o.no_plots = true;
    REQUIRE(kbrain::cmd_compare(o) == 0);
    const std::string table = read_text(out / "compare.csv");
    kbrain::catch_stop_signals();
    std::raise(SIGINT);
    int code = 0;
    try {
      kbrain::cmd_compare(o);
    } catch (const kbrain::RunInterrupted& e) {
      code = e.exit_code();
      CHECK(contains(e.what(), kept_folder(out).string()));
    }
    kbrain::clear_stop_signal();
    CHECK(code == 128 + SIGINT);
    CHECK(read_text(out / "compare.csv") == table);
    CHECK(fs::is_directory(kept_folder(out)));
  }
}
