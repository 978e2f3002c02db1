#include "experiments/program/reproduce/study_recipe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/config/experiment_config.hpp"
#include "core/config/toml_reader.hpp"
#include "kbrain_build_config.hpp"

namespace kbrain {

namespace fs = std::filesystem;
using namespace config_detail;

namespace {

const std::vector<std::string> kBackends = {"serial", "openmp", "cuda"};
const std::vector<std::string> kPrecisions = {"float", "double"};

// Each element of array `key` through `element(node, "key[i]")`; absent: empty.
template <class T, class Element>
std::vector<T> read_list(TableReader& t, std::string_view key, std::string_view expected, Element element) {
  std::vector<T> out;
  const toml::array* array = t.get_array(key, expected);
  if (!array) return out;
  if (array->empty()) t.fail(key, fmt::format("must not be empty ({})", expected));
  for (std::size_t i = 0; i < array->size(); ++i) out.push_back(element(*array->get(i), fmt::format("{}[{}]", t.key_path(key), i)));
  return out;
}

StudyScale read_scale(TableReader& table, std::string_view key) {
  StudyScale s;
  std::optional<TableReader> t = table.get_table(key);
  if (!t) table.fail_missing(key, "a table with sizes (and optionally densities, steps, note)");
  s.sizes = read_list<std::int64_t>(*t, "sizes", "an array of positive integers", [&](const toml::node& n, const std::string& path) {
    if (!n.is_integer() || n.as_integer()->get() < 1) t->fail_at(n, path, fmt::format("must be a positive integer (got {})", describe(n)));
    return n.as_integer()->get();
  });
  if (s.sizes.empty()) t->fail_missing("sizes", "an array of positive integers");
  s.densities = read_list<double>(*t, "densities", "an array of positive numbers", [&](const toml::node& n, const std::string& path) {
    const double v = n.is_integer() ? double(n.as_integer()->get()) : n.is_floating_point() ? n.as_floating_point()->get() : -1;
    if (!(v > 0)) t->fail_at(n, path, fmt::format("must be a positive number (got {})", describe(n)));
    return v;
  });
  if (auto steps = t->get_integer("steps")) {
    if (*steps < 1) t->fail("steps", fmt::format("must be >= 1 (got {})", *steps));
    s.steps = *steps;
  }
  if (auto ms = t->get_number("duration_ms")) {
    if (!(*ms > 0)) t->fail("duration_ms", "must be > 0");
    if (s.steps > 0) t->fail("duration_ms", "and steps are two ways to say one thing: give one");
    s.duration_ms = *ms;
  }
  s.note = t->get_string("note").value_or("");
  t->reject_unknown_keys();
  return s;
}

StudyColumn read_column(TableReader& t, const fs::path& base) {
  StudyColumn c;
  c.name = t.require_string("name", "the column's heading (a published column of the CSV, or kbrain's own)");
  const std::string experiment = t.require_string("experiment", "an experiment file, relative to the recipe");
  c.experiment = (base / experiment).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(c.experiment, ec)) t.fail("experiment", fmt::format("names no file ({})", c.experiment.string()));
  c.backend = t.get_choice("backend", kBackends, std::nullopt);
  c.precision = t.get_choice("precision", kPrecisions, std::string("float"));
  t.reject_unknown_keys();
  return c;
}

StudyTable read_table(TableReader& t, const fs::path& base) {
  StudyTable s;
  s.id = t.require_string("id", "a short name (letters, digits, '_')");
  if (s.id.empty() || !std::all_of(s.id.begin(), s.id.end(), [](char ch) { return std::isalnum((unsigned char)ch) || ch == '_'; }))
    t.fail("id", fmt::format("must be letters, digits or '_' (got \"{}\")", s.id));
  s.title = t.require_string("title", "the table's caption");
  s.unit = t.require_string("unit", "the unit of the table's numbers");
  const std::string published = t.require_string("published", "the CSV of the study's numbers, relative to the recipe");
  s.published = (base / published).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(s.published, ec)) t.fail("published", fmt::format("names no file ({})", s.published.string()));
  s.size_key = t.get_string("size_key").value_or("");
  s.density_key = t.get_string("density_key").value_or("");
  s.measure = t.get_choice("measure", study_measures(), std::nullopt);
  if (auto steps = t.get_integer("per_steps")) {
    if (*steps < 1) t.fail("per_steps", fmt::format("must be >= 1 (got {})", *steps));
    if (s.measure != "simulate_s") t.fail("per_steps", "applies only to measure = \"simulate_s\"");
    s.per_steps = *steps;
  }
  s.max_over_sizes = t.get_bool("max_over_sizes").value_or(false);
  if (s.measure == "largest_cells" && !s.max_over_sizes)
    t.fail("measure", "\"largest_cells\" is one number per column: give max_over_sizes = true");
  if (s.max_over_sizes == !s.size_key.empty())
    t.fail(s.max_over_sizes ? "max_over_sizes" : "size_key",
           "a table has either rows per size (size_key) or one row of maxima (max_over_sizes = true)");
  const toml::array* columns = t.get_array("column", "an array of tables ([[table.column]])");
  if (!columns || columns->empty()) t.fail_missing("column", "at least one [[table.column]]");
  for (std::size_t i = 0; i < columns->size(); ++i) {
    const toml::node& n = *columns->get(i);
    if (!n.is_table()) t.fail_at(n, fmt::format("{}[{}]", t.key_path("column"), i), "must be a table");
    TableReader c(*n.as_table(), fmt::format("{}[{}]", t.key_path("column"), i), t.file());
    s.columns.push_back(read_column(c, base));
    for (std::size_t j = 0; j + 1 < s.columns.size(); ++j)
      if (s.columns[j].name == s.columns.back().name) c.fail("name", fmt::format("repeats column \"{}\"", s.columns[j].name));
  }
  if (const toml::array* ratios = t.get_array("ratio", "an array of tables ([[table.ratio]])")) {
    for (std::size_t i = 0; i < ratios->size(); ++i) {
      const toml::node& n = *ratios->get(i);
      if (!n.is_table()) t.fail_at(n, fmt::format("{}[{}]", t.key_path("ratio"), i), "must be a table");
      TableReader r(*n.as_table(), fmt::format("{}[{}]", t.key_path("ratio"), i), t.file());
      StudyRatio ratio{r.require_string("name", "the ratio's heading"), r.require_string("of", "a column name"),
                       r.require_string("over", "a column name")};
      for (const char* key : {"of", "over"}) {
        const std::string& col = std::string(key) == "of" ? ratio.of : ratio.over;
        if (std::none_of(s.columns.begin(), s.columns.end(), [&](const StudyColumn& c) { return c.name == col; }))
          r.fail(key, fmt::format("names no [[table.column]] of this table (got \"{}\")", col));
      }
      r.reject_unknown_keys();
      s.ratios.push_back(std::move(ratio));
    }
  }
  if (auto printed = t.get_string("printed_ratios")) {
    if (s.ratios.empty() || s.size_key.empty()) t.fail("printed_ratios", "needs [[table.ratio]] and size_key");
    s.printed_ratios = (base / *printed).lexically_normal();
    if (!fs::is_regular_file(s.printed_ratios, ec))
      t.fail("printed_ratios", fmt::format("names no file ({})", s.printed_ratios.string()));
  }
  s.small = read_scale(t, "small");
  s.full = read_scale(t, "full");
  t.reject_unknown_keys();
  return s;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) throw ConfigError(fmt::format("{}: cannot read the study recipe", file.string()));
  return text.str();
}

fs::path studies_folder() {
  std::error_code ec;
  if (fs::is_directory("experiments/studies", ec)) return "experiments/studies";
  return fs::path(KBRAIN_SOURCE_DIR) / "experiments" / "studies";
}

}  // namespace

StudyRecipe load_study_recipe(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw ConfigError(fmt::format("{}: study recipe not found", file.string()));
  toml::table document;
  try {
    document = toml::parse(read_text(file), file.string());
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("{}:{}:{}: TOML syntax error: {}", file.string(), e.source().begin.line,
                                  e.source().begin.column, e.description()));
  }
  StudyRecipe r;
  r.source = file;
  const fs::path base = fs::absolute(file.parent_path().empty() ? fs::path(".") : file.parent_path(), ec);
  TableReader root(document, "", file.string());
  r.study = root.require_string("study", "the study's short name");
  r.title = root.require_string("title", "the study's title");
  r.reference = root.require_string("reference", "where the study's numbers come from");
  r.published_hardware = root.require_string("published_hardware", "what the study ran on");
  const toml::array* tables = root.get_array("table", "an array of tables ([[table]])");
  if (!tables || tables->empty()) root.fail_missing("table", "at least one [[table]]");
  for (std::size_t i = 0; i < tables->size(); ++i) {
    const toml::node& n = *tables->get(i);
    if (!n.is_table()) root.fail_at(n, fmt::format("table[{}]", i), "must be a table");
    TableReader t(*n.as_table(), fmt::format("table[{}]", i), file.string());
    r.tables.push_back(read_table(t, base));
    for (std::size_t j = 0; j + 1 < r.tables.size(); ++j)
      if (r.tables[j].id == r.tables.back().id) t.fail("id", fmt::format("repeats table id \"{}\"", r.tables[j].id));
  }
  root.reject_unknown_keys();
  return r;
}

fs::path find_study_recipe(const std::string& name) {
  if (name.size() > 5 && name.substr(name.size() - 5) == ".toml") return name;
  const fs::path folder = studies_folder();
  const fs::path file = folder / (name + ".toml");
  std::error_code ec;
  if (!name.empty() && name.find('/') == std::string::npos && fs::is_regular_file(file, ec)) return file;
  std::vector<std::string> known;
  for (const auto& entry : fs::directory_iterator(folder, ec))
    if (entry.path().extension() == ".toml") known.push_back(entry.path().stem().string());
  std::sort(known.begin(), known.end());
  throw ConfigError(fmt::format("reproduce: no study \"{}\" in {} (known: {})", name, folder.string(),
                                known.empty() ? std::string("none") : join(known)));
}

}  // namespace kbrain
