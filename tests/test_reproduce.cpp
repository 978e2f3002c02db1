// `kbrain reproduce`: the studies' recipes and published tables in the repository load and agree with each other, a
// bad recipe or table is refused naming its file and line, and the report sets the study's numbers beside kbrain's
// (study / kbrain, ratios both ways, reduced and absent cells marked) from a hand-made comparison.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "experiments/program/reproduce/published_table.hpp"
#include "experiments/program/reproduce/study_recipe.hpp"
#include "experiments/program/reproduce/study_report.hpp"
#include "models/olive/olive_model.hpp"
#include "models/registry.hpp"
#include "tests/test_helpers.hpp"

namespace fs = std::filesystem;
using namespace kbrain;
using kbrain::test::TempDir;

namespace {

const fs::path kStudies = fs::path(KBRAIN_SOURCE_DIR) / "experiments" / "studies";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

void write(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }

// A two-column recipe over one experiment of the repository, with its published CSV.
std::string tiny_recipe(const std::string& table_extra = "") {
  return "study = \"tiny\"\ntitle = \"Tiny\"\nreference = \"none\"\npublished_hardware = \"a GPU\"\n"
         "[[table]]\nid = \"t\"\ntitle = \"T\"\nunit = \"s\"\npublished = \"t.csv\"\nsize_key = \"N\"\n"
         "measure = \"wall_s_per_bio_s\"\n" + table_extra +
         "[[table.column]]\nname = \"CPU\"\nexperiment = \"" + (fs::path(KBRAIN_SOURCE_DIR) / "experiments/coba.toml").string() +
         "\"\nbackend = \"serial\"\n"
         "[[table.column]]\nname = \"GPU\"\nexperiment = \"" + (fs::path(KBRAIN_SOURCE_DIR) / "experiments/coba.toml").string() +
         "\"\nbackend = \"cuda\"\n"
         "[[table.ratio]]\nname = \"GPU vs CPU\"\nof = \"CPU\"\nover = \"GPU\"\n"
         "[table.small]\nsizes = [100, 200]\nsteps = 10\n[table.full]\nsizes = [1000]\n";
}

ComparisonTableRow row(const std::string& backend, double cells, double wall_s_per_bio_s, std::int64_t steps,
                       std::int64_t asked) {
  ComparisonTableRow r;
  r.backend = backend;
  r.precision = "float";
  r.steps = steps;
  r.steps_requested = asked;
  r.values = {ReportValue::num(cells), ReportValue::num(wall_s_per_bio_s)};
  return r;
}

}  // namespace

TEST_SUITE("reproduce") {
  TEST_CASE("every study's recipe loads, its tables have their key columns and its experiments load") {
    int studies = 0;
    for (const std::string name : {"du_nguyen", "neofytou", "van_der_vlag", "wang"}) {
      CAPTURE(name);
      const StudyRecipe r = load_study_recipe(kStudies / (name + ".toml"));
      CHECK(r.study == name);
      CHECK(!r.tables.empty());
      for (const auto& t : r.tables) {
        CAPTURE(t.id);
        const PublishedTable p = load_published_table(t.published);
        CHECK(!p.rows.empty());
        CHECK(!p.provenance.empty());
        if (!t.size_key.empty()) CHECK_NOTHROW((void)p.column(t.size_key));
        if (!t.density_key.empty()) CHECK_NOTHROW((void)p.column(t.density_key));
        int published_columns = 0;
        for (const auto& c : t.columns) {
          CHECK_NOTHROW((void)load_model_experiment(c.experiment));
          published_columns += p.has_column(c.name);
        }
        // something of kbrain's is set beside the study's numbers (a table of maxima is drawn beside them instead)
        if (!t.max_over_sizes) CHECK(published_columns > 0);
        CHECK(!t.small.sizes.empty());
        CHECK(!t.full.sizes.empty());
      }
      ++studies;
    }
    CHECK(studies == 4);
    // The published rows are the study's: Wang's Table II at 1M neurons, van der Vlag's uniform W1 at 4M, density 1000.
    const PublishedTable t2 = load_published_table(kStudies / "wang" / "table2.csv");
    CHECK(t2.rows.back()[t2.column("N")] == 1000000);
    CHECK(t2.rows.back()[t2.column("GPU All")] == doctest::Approx(48.96));
    const PublishedTable u = load_published_table(kStudies / "van_der_vlag" / "compute_uniform.csv");
    CHECK(u.rows.back()[u.column("W1")] == doctest::Approx(83.29));
  }

  TEST_CASE("a bad recipe or published table is refused naming the file and line") {
    TempDir tmp("reproduce");
    write(tmp.path / "t.csv", "# Table T of nothing\nN,CPU,GPU\n100,2.0,0.5\n");
    write(tmp.path / "ok.toml", tiny_recipe());
    CHECK_NOTHROW(load_study_recipe(tmp.path / "ok.toml"));
    write(tmp.path / "typo.toml", tiny_recipe("meassure = 1\n"));
    const std::string typo = error_of([&] { load_study_recipe(tmp.path / "typo.toml"); });
    CHECK(typo.find("typo.toml:12") != std::string::npos);
    CHECK(typo.find("unknown key table[0].meassure") != std::string::npos);
    write(tmp.path / "measure.toml", tiny_recipe("per_steps = 5\n"));
    CHECK(error_of([&] { load_study_recipe(tmp.path / "measure.toml"); }).find("per_steps applies only to") != std::string::npos);
    std::string bad_ratio = tiny_recipe();
    bad_ratio.replace(bad_ratio.find("over = \"GPU\""), 12, "over = \"TPU\"");
    write(tmp.path / "ratio.toml", bad_ratio);
    CHECK(error_of([&] { load_study_recipe(tmp.path / "ratio.toml"); }).find("names no [[table.column]]") != std::string::npos);
    write(tmp.path / "bad.csv", "# Table T\nN,CPU\n100,2.0\n200,x\n");
    const std::string csv = error_of([&] { load_published_table(tmp.path / "bad.csv"); });
    CHECK(csv.find("bad.csv:4: column \"CPU\" holds \"x\"") != std::string::npos);
    write(tmp.path / "short.csv", "# Table T\nN,CPU\n100\n");
    CHECK(error_of([&] { load_published_table(tmp.path / "short.csv"); }).find("short.csv:3: 1 fields where the header has 2") != std::string::npos);
    write(tmp.path / "bare.csv", "N,CPU\n100,1\n");
    CHECK(error_of([&] { load_published_table(tmp.path / "bare.csv"); }).find("no '#' line") != std::string::npos);
    write(tmp.path / "header_only.csv", "# Table T\nN,CPU\n\n");
    CHECK(error_of([&] { load_published_table(tmp.path / "header_only.csv"); }).find("header_only.csv: a header but no row")
          != std::string::npos);
    CHECK(error_of([] { find_study_recipe("no_such_study"); }).find("known: du_nguyen") != std::string::npos);
  }

  TEST_CASE("the report: the study's numbers, kbrain's, study / kbrain at a published size, ratios both ways") {
    TempDir tmp("reproduce_report");
    write(tmp.path / "t.csv", "# Table T of nothing\nN,CPU,GPU\n100,2.0,0.5\n1000,20,4\n");
    write(tmp.path / "r.toml", tiny_recipe());
    const StudyRecipe recipe = load_study_recipe(tmp.path / "r.toml");
    StudyEvidence e;
    e.backends_present = {"serial", "openmp"};
    StudyRun run;
    run.experiment = recipe.tables[0].columns[0].experiment;
    run.folder = "runs/coba";
    run.table.columns = {{"neurons", "neurons", "int"}, {"wall_s_per_bio_s", "wall s per bio s", "sig3"}};
    run.table.rows = {row("serial", 100, 0.8, 10, 10), row("serial", 200, 1.6, 5, 10)};
    e.runs.push_back(run);
    const std::string md = study_report_markdown(recipe, e);
    CHECK(md.find("| 100 | 2 | 0.5 |") != std::string::npos);          // the study's row as published
    CHECK(md.find("| 100 | 0.8 | no cuda |") != std::string::npos);     // kbrain's, the GPU column absent
    CHECK(md.find("| 200 | 1.6 † | no cuda |") != std::string::npos);  // fewer steps than asked: marked
    CHECK(md.find("| 100 | 2 | 0.8 | 2.5× |") != std::string::npos);   // study / kbrain at the published size
    CHECK(md.find("| 1000 | 5 | — |") != std::string::npos);           // the study's ratio 20/4; kbrain has none there
    CHECK(md.find("fewer steps than asked") != std::string::npos);
    CHECK(md.find("\"no cuda\"") != std::string::npos);
    CHECK(md.find("[runs/coba](runs/coba/compare.md)") != std::string::npos);
    // With the GPU column measured, kbrain's ratio is computed from kbrain's numbers.
    e.backends_present.push_back("cuda");
    e.runs[0].table.rows.push_back(row("cuda", 100, 0.1, 10, 10));
    const std::string with_gpu = study_report_markdown(recipe, e);
    CHECK(with_gpu.find("| 100 | 4 | 8 |") != std::string::npos);  // GPU vs CPU: study 2/0.5, kbrain 0.8/0.1
  }

  TEST_CASE("largest_cells: the IO memory planner's largest square mesh on the host, smaller in double") {
    const ExperimentConfig cfg = load_model_experiment(fs::path(KBRAIN_SOURCE_DIR) / "experiments/io_du_nguyen_mesh.toml");
    const olive::OlivePlan plan = olive::OliveModel::make_plan(cfg, PlanRequest{});
    const std::int64_t in_float = olive::OliveModel::largest_cells(plan, "serial", Precision::Float);
    const std::int64_t in_double = olive::OliveModel::largest_cells(plan, "serial", Precision::Double);
    const auto side = std::llround(std::sqrt(double(in_float)));
    CHECK(side * side == in_float);  // a mesh: a square
    CHECK(in_float > 256 * 256);     // this very experiment's mesh fits
    CHECK(in_double < in_float);     // eight bytes a value instead of four
  }
}
