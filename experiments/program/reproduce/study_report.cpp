#include "experiments/program/reproduce/study_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/text/json.hpp"
#include "experiments/program/reproduce/published_table.hpp"

namespace kbrain {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Three significant digits, without exponents for the study's range of seconds.
std::string number_text(double v) {
  if (std::isnan(v)) return "—";
  if (v == std::round(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);  // sizes, densities
  if (std::fabs(v) >= 1000) return fmt::format("{:.0f}", v);
  if (std::fabs(v) >= 100) return fmt::format("{:.1f}", v);
  return fmt::format("{:.3g}", v);
}

std::string published_text(double v) { return std::isnan(v) ? "—" : fmt::format("{}", v); }

std::string cells_text(double cells) { return fmt::format("{:.0f}", cells); }

// kbrain's value of one cell of a table, and whether its run was shortened.
struct Measured {
  double value = kNaN;
  bool reduced = false;
  std::string missing;  // why there is no value ("" when there is)
};

double measure_of(const StudyTable& t, const ComparisonTable& table, const ComparisonTableRow& row) {
  if (t.measure == "speedup_vs_serial") return row.speedup_vs_serial;
  if (t.measure == "speedup_vs_openmp") return row.speedup_vs_openmp;
  for (std::size_t i = 0; i < table.columns.size(); ++i)
    if (table.columns[i].key == t.measure) {
      const double v = row.values[i].number;
      if (t.measure == "simulate_s" && t.per_steps > 0) return row.steps > 0 ? v * double(t.per_steps) / double(row.steps) : kNaN;
      return v;
    }
  return kNaN;
}

Measured measured(const StudyTable& t, const StudyEvidence& e, const StudyColumn& c, double density, double cells) {
  Measured m;
  if (std::find(e.backends_present.begin(), e.backends_present.end(), c.backend) == e.backends_present.end()) {
    m.missing = "no " + c.backend;
    return m;
  }
  if (t.measure == "largest_cells") {
    for (const StudyFigure& f : e.figures)
      if (f.table == t.id && f.column == c.name) {
        m.value = f.value;
        return m;
      }
    m.missing = "not computed";
    return m;
  }
  const StudyRun* run = find_study_run(e, c, density);
  if (!run) {
    m.missing = "not run";
    return m;
  }
  for (const auto& row : run->table.rows)
    if (row.backend == c.backend && row.precision == c.precision && !row.values.empty() && row.values[0].number == cells) {
      m.value = measure_of(t, run->table, row);
      m.reduced = row.steps < row.steps_requested;
      return m;
    }
  m.missing = "not run";
  return m;
}

std::string cell_text(const Measured& m) {
  if (!m.missing.empty()) return m.missing;
  return number_text(m.value) + (m.reduced ? " †" : "");
}

// kbrain's rows of a table: (density, cells) in the order the runs measured them.
std::vector<std::pair<double, double>> kbrain_rows(const StudyTable& t, const StudyEvidence& e, bool full) {
  std::vector<std::pair<double, double>> rows;
  const StudyScale& s = t.scale(full);
  const std::vector<double> densities = s.densities.empty() ? std::vector<double>{0} : s.densities;
  for (double d : densities)
    for (const auto& c : t.columns)
      if (const StudyRun* run = find_study_run(e, c, d))
        for (const auto& row : run->table.rows)
          // a row that did not fit has no cell count: its note says so in the run's compare folder
          if (!row.values.empty() && std::isfinite(row.values[0].number) &&
              std::find(rows.begin(), rows.end(), std::make_pair(d, row.values[0].number)) == rows.end())
            rows.emplace_back(d, row.values[0].number);
  std::stable_sort(rows.begin(), rows.end());
  return rows;
}

// The published row with these cells (and density), if any.
std::optional<std::size_t> published_row(const StudyTable& t, const PublishedTable& p, double density, double cells) {
  if (t.size_key.empty()) return std::nullopt;
  const std::size_t size_col = p.column(t.size_key);
  for (std::size_t r = 0; r < p.rows.size(); ++r) {
    if (p.rows[r][size_col] != cells) continue;
    if (!t.density_key.empty() && p.rows[r][p.column(t.density_key)] != density) continue;
    return r;
  }
  return std::nullopt;
}

void markdown_row(std::string& out, const std::vector<std::string>& cells) {
  out += "|";
  for (const auto& c : cells) out += " " + c + " |";
  out += "\n";
}

void markdown_header(std::string& out, const std::vector<std::string>& cells) {
  markdown_row(out, cells);
  out += "|";
  for (std::size_t i = 0; i < cells.size(); ++i) out += i == 0 ? "---|" : "---:|";
  out += "\n";
}

std::vector<std::string> key_headings(const StudyTable& t) {
  std::vector<std::string> h;
  if (!t.density_key.empty()) h.push_back(t.density_key);
  h.push_back(t.size_key.empty() ? "sizes" : t.size_key);
  return h;
}

std::vector<std::string> key_cells(const StudyTable& t, double density, double cells) {
  std::vector<std::string> k;
  if (!t.density_key.empty()) k.push_back(density > 0 ? number_text(density) : "file's");
  k.push_back(cells_text(cells));
  return k;
}

void published_section(std::string& out, const PublishedTable& p) {
  out += "The study's numbers (" + p.file.filename().string() + "):\n\n";
  markdown_header(out, p.header);
  for (const auto& row : p.rows) {
    std::vector<std::string> cells;
    for (double v : row) cells.push_back(published_text(v));
    markdown_row(out, cells);
  }
  out += "\n";
}

void kbrain_section(std::string& out, const StudyTable& t, const StudyEvidence& e, bool& any_reduced) {
  out += fmt::format("kbrain's numbers ({}):\n\n", t.unit);
  std::vector<std::string> heading = t.max_over_sizes ? std::vector<std::string>{"sizes (cells)"} : key_headings(t);
  for (const auto& c : t.columns) heading.push_back(fmt::format("{} <sub>{} {}</sub>", c.name, c.backend, c.precision));
  markdown_header(out, heading);
  const auto rows = kbrain_rows(t, e, e.full_scale);
  if (t.max_over_sizes) {
    std::string sizes;
    for (const auto& [d, cells] : rows) sizes += (sizes.empty() ? "" : ", ") + cells_text(cells);
    if (t.measure == "largest_cells") sizes = "the memory planner, free memory now";
    std::vector<std::string> line = {sizes.empty() ? "—" : sizes};
    for (const auto& c : t.columns) {
      if (t.measure == "largest_cells") {
        line.push_back(cell_text(measured(t, e, c, 0, 0)));
        continue;
      }
      Measured best;
      best.missing = "not run";
      for (const auto& [d, cells] : rows) {
        const Measured m = measured(t, e, c, d, cells);
        if (!m.missing.empty()) {
          if (best.missing == "not run") best.missing = m.missing;
          continue;
        }
        if (best.missing.size() || m.value > best.value) best = m;
      }
      any_reduced = any_reduced || (best.missing.empty() && best.reduced);
      line.push_back(cell_text(best));
    }
    markdown_row(out, line);
  } else {
    for (const auto& [d, cells] : rows) {
      std::vector<std::string> line = key_cells(t, d, cells);
      for (const auto& c : t.columns) {
        const Measured m = measured(t, e, c, d, cells);
        any_reduced = any_reduced || (m.missing.empty() && m.reduced);
        line.push_back(cell_text(m));
      }
      markdown_row(out, line);
    }
  }
  out += "\n";
}

// Where kbrain ran a published size: study, kbrain and study / kbrain per column the study published.
void side_by_side_section(std::string& out, const StudyTable& t, const PublishedTable& p, const StudyEvidence& e) {
  std::vector<const StudyColumn*> shared;
  for (const auto& c : t.columns)
    if (p.has_column(c.name)) shared.push_back(&c);
  if (shared.empty() || t.size_key.empty()) return;
  std::string body;
  for (const auto& [d, cells] : kbrain_rows(t, e, e.full_scale)) {
    const auto r = published_row(t, p, d, cells);
    if (!r) continue;
    std::vector<std::string> line = key_cells(t, d, cells);
    for (const StudyColumn* c : shared) {
      const double study = p.rows[*r][p.column(c->name)];
      const Measured m = measured(t, e, *c, d, cells);
      line.push_back(published_text(study));
      line.push_back(cell_text(m));
      line.push_back(m.missing.empty() && !std::isnan(study) && m.value > 0 ? number_text(study / m.value) + "×" : "—");
    }
    markdown_row(body, line);
  }
  if (body.empty()) {
    out += "No published size was run at this scale, so the numbers are not set side by side (`--scale full` runs "
           "the study's sizes).\n\n";
    return;
  }
  out += "Side by side at the published sizes (study ÷ kbrain: how many times faster kbrain is, > 1 when it is):\n\n";
  std::vector<std::string> heading = key_headings(t);
  for (const StudyColumn* c : shared) {
    heading.push_back(c->name + " study");
    heading.push_back(c->name + " kbrain");
    heading.push_back("study ÷ kbrain");
  }
  markdown_header(out, heading);
  out += body + "\n";
}

// The study's ratios from its numbers (and as printed), and the same ratios of kbrain's numbers.
void ratio_section(std::string& out, const StudyTable& t, const PublishedTable& p, const StudyEvidence& e) {
  if (t.ratios.empty()) return;
  const std::optional<PublishedTable> printed =
      t.printed_ratios.empty() ? std::nullopt : std::optional<PublishedTable>(load_published_table(t.printed_ratios));
  auto column_of = [&](const std::string& name) {
    return *std::find_if(t.columns.begin(), t.columns.end(), [&](const StudyColumn& c) { return c.name == name; });
  };
  std::string table;
  std::vector<std::string> heading = key_headings(t);
  for (const auto& r : t.ratios) {
    heading.push_back(r.name + " study");
    if (printed && printed->has_column(r.name)) heading.push_back(r.name + " as printed");
    heading.push_back(r.name + " kbrain");
  }
  markdown_header(table, heading);
  bool any_row = false;
  std::vector<std::pair<double, double>> rows;
  const std::size_t size_col = p.column(t.size_key);
  for (const auto& row : p.rows)
    rows.emplace_back(t.density_key.empty() ? 0 : row[p.column(t.density_key)], row[size_col]);
  for (const auto& kr : kbrain_rows(t, e, e.full_scale))
    if (std::find(rows.begin(), rows.end(), kr) == rows.end()) rows.push_back(kr);
  for (const auto& [d, cells] : rows) {
    std::vector<std::string> line = key_cells(t, d, cells);
    const std::size_t keys = line.size();
    const auto pr = published_row(t, p, d, cells);
    for (const auto& r : t.ratios) {
      double study = kNaN;
      if (pr && p.has_column(r.of) && p.has_column(r.over))
        study = p.rows[*pr][p.column(r.of)] / p.rows[*pr][p.column(r.over)];
      line.push_back(number_text(study));
      if (printed && printed->has_column(r.name)) {
        double shown = kNaN;
        for (const auto& row : printed->rows)
          if (row[printed->column(t.size_key)] == cells) shown = row[printed->column(r.name)];
        line.push_back(published_text(shown));
      }
      const Measured a = measured(t, e, column_of(r.of), d, cells), b = measured(t, e, column_of(r.over), d, cells);
      line.push_back(a.missing.empty() && b.missing.empty() && b.value > 0 ? number_text(a.value / b.value) : "—");
    }
    // a size where neither the study nor kbrain has any of the ratios says nothing
    if (std::any_of(line.begin() + long(keys), line.end(), [](const std::string& c) { return c != "—"; })) {
      markdown_row(table, line);
      any_row = true;
    }
  }
  if (any_row)
    out += "Ratios (speedups), from the study's numbers and from kbrain's:\n\n" + table + "\n";
  else
    out += "Ratios (speedups): none could be computed, neither from the study's numbers nor from the columns kbrain "
           "ran.\n\n";
}

// The runs' hardware lines, one per backend (the longest: some models add the copy bandwidth), the study's left out.
std::vector<std::pair<std::string, std::string>> kbrain_hardware(const StudyEvidence& e) {
  std::vector<std::pair<std::string, std::string>> hardware;
  for (const auto& run : e.runs)
    for (const auto& [backend, description] : run.table.hardware) {
      if (backend == "study s") continue;
      // A named copy of the binding: C++17 lets no lambda capture a structured binding (clang refuses it).
      const std::string& name = backend;
      auto it = std::find_if(hardware.begin(), hardware.end(), [&](const auto& h) { return h.first == name; });
      if (it == hardware.end()) hardware.emplace_back(backend, description);
      else if (description.size() > it->second.size()) it->second = description;
    }
  return hardware;
}

std::string scale_footnote(const StudyTable& t, const StudyEvidence& e) {
  const StudyScale& s = t.scale(e.full_scale);
  std::string sizes;
  for (auto v : s.sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(v);
  std::string text = fmt::format("kbrain ran sizes {}", sizes);
  if (!s.densities.empty()) {
    std::string d;
    for (auto v : s.densities) d += (d.empty() ? "" : ", ") + number_text(v);
    text += fmt::format(" at {} {}", t.density_key.empty() ? std::string("densities") : t.density_key, d);
  }
  const std::string scale_steps = s.steps > 0 ? fmt::format("{} steps", s.steps)
                                  : s.duration_ms > 0 ? fmt::format("{} ms of model time", number_text(s.duration_ms))
                                                      : std::string("the experiment's steps");
  text += e.steps_override > 0 ? fmt::format(", {} steps (`--steps {}`, in place of {})", e.steps_override,
                                             e.steps_override, scale_steps)
                               : ", " + scale_steps;
  text += fmt::format(" (`--scale {}`)", e.full_scale ? "full" : "small");
  if (!s.note.empty()) text += ": " + s.note;
  return text + ".";
}

}  // namespace

const StudyRun* find_study_run(const StudyEvidence& e, const StudyColumn& column, double density) {
  for (const auto& run : e.runs)
    if (run.experiment == column.experiment && run.density == density) return &run;
  return nullptr;
}

std::string study_report_markdown(const StudyRecipe& recipe, const StudyEvidence& e) {
  std::string out = fmt::format("# Reproducing {}\n\n", recipe.title);
  out += fmt::format("- study: {}\n- study's hardware: {}\n", recipe.reference, recipe.published_hardware);
  out += fmt::format("- kbrain: commit {}, {}, {}; scale **{}**\n", e.commit, e.date, e.kokkos, e.full_scale ? "full" : "small");
  out += fmt::format("- command: `{}`\n", e.command);
  for (const auto& [backend, description] : kbrain_hardware(e)) out += fmt::format("- kbrain's {}: {}\n", backend, description);
  out += "\nEach table: the study's numbers as published (kept as data beside the recipe), kbrain's numbers in the "
         "same columns, the two side by side where kbrain ran the published size, and the ratios computed both ways. "
         "The runs behind kbrain's numbers, with every phase time and the agreement with the reference run, are the "
         "`kbrain compare` folders listed at the end.\n\n";
  for (const auto& t : recipe.tables) {
    const PublishedTable p = load_published_table(t.published);
    out += fmt::format("## {}\n\n", t.title);
    for (const auto& line : p.provenance) out += "> " + line + "\n";
    out += "\n";
    published_section(out, p);
    out += fmt::format("![{}](plots/{}.png)\n\n", t.id, t.id);
    bool any_reduced = false;
    kbrain_section(out, t, e, any_reduced);
    if (t.measure == "largest_cells")
      out += "kbrain's cell is what its memory planner fits into the backend's free memory on this machine now "
             "(nothing is allocated); `kbrain run` refuses a larger network before allocating.\n\n";
    else if (t.max_over_sizes)
      out += "kbrain's cell is the largest over its sizes; the study quotes its maximum.\n\n";
    side_by_side_section(out, t, p, e);
    ratio_section(out, t, p, e);
    std::vector<std::string> notes;
    if (t.measure != "largest_cells") notes.push_back(scale_footnote(t, e));
    else if (!t.scale(e.full_scale).note.empty()) notes.push_back(t.scale(e.full_scale).note + ".");
    if (any_reduced)
      notes.push_back("† fewer steps than asked (a slow backend's budget, `max_slow_cell_steps`); the time is per "
                      "biological second or per step, so it stays comparable.");
    std::vector<std::string> absent;
    for (const auto& c : t.columns)
      if (std::find(e.backends_present.begin(), e.backends_present.end(), c.backend) == e.backends_present.end() &&
          std::find(absent.begin(), absent.end(), c.backend) == absent.end())
        absent.push_back(c.backend);
    for (const auto& b : absent)
      notes.push_back(fmt::format("\"no {}\": the {} backend is not compiled into this kbrain or was left out with "
                                  "--backends, so those columns were not run.", b, b));
    for (const auto& n : notes) out += "- " + n + "\n";
    out += "\n";
  }
  out += "## Runs\n\n";
  for (const auto& run : e.runs)
    out += fmt::format("- [{}]({}/compare.md): `{}`{}\n", run.folder, run.folder, run.experiment.filename().string(),
                       run.density > 0 ? fmt::format(", density {}", number_text(run.density)) : std::string());
  return out;
}

std::string study_report_json(const StudyRecipe& recipe, const StudyEvidence& e) {
  using text::json_number;
  using text::json_string;
  auto list = [](const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out + "]";
  };
  std::vector<std::string> hardware;
  for (const auto& [backend, description] : kbrain_hardware(e))
    hardware.push_back(fmt::format("{{\"backend\": {}, \"description\": {}}}", json_string(backend), json_string(description)));
  std::vector<std::string> tables;
  for (const auto& t : recipe.tables) {
    const PublishedTable p = load_published_table(t.published);
    std::vector<std::string> header, rows, columns, kbrain;
    for (const auto& h : p.header) header.push_back(json_string(h));
    for (const auto& row : p.rows) {
      std::vector<std::string> cells;
      for (double v : row) cells.push_back(json_number(v));
      rows.push_back(list(cells));
    }
    for (const auto& c : t.columns)
      columns.push_back(fmt::format("{{\"name\": {}, \"backend\": {}, \"precision\": {}, \"published\": {}}}",
                                    json_string(c.name), json_string(c.backend), json_string(c.precision),
                                    p.has_column(c.name) ? "true" : "false"));
    auto rows_of_table = kbrain_rows(t, e, e.full_scale);
    if (t.measure == "largest_cells") rows_of_table = {{0.0, 0.0}};  // one row, no run behind it
    for (const auto& [d, cells] : rows_of_table) {
      std::vector<std::string> values, reduced;
      for (const auto& c : t.columns) {
        const Measured m = measured(t, e, c, d, cells);
        values.push_back(json_number(m.value));
        reduced.push_back(m.missing.empty() && m.reduced ? "true" : "false");
      }
      kbrain.push_back(fmt::format("{{\"density\": {}, \"cells\": {}, \"values\": {}, \"reduced\": {}}}", json_number(d),
                                   json_number(cells), list(values), list(reduced)));
    }
    tables.push_back(fmt::format(
        "{{\"id\": {}, \"title\": {}, \"unit\": {}, \"measure\": {}, \"size_key\": {}, \"density_key\": {}, "
        "\"max_over_sizes\": {},\n   \"published\": {{\"header\": {}, \"rows\": {}}},\n   \"columns\": {},\n   \"kbrain\": {}}}",
        json_string(t.id), json_string(t.title), json_string(t.unit), json_string(t.measure), json_string(t.size_key),
        json_string(t.density_key), t.max_over_sizes ? "true" : "false", list(header), list(rows), list(columns),
        list(kbrain)));
  }
  std::string joined;
  for (std::size_t i = 0; i < tables.size(); ++i) joined += (i ? ",\n  " : "") + tables[i];
  return fmt::format(
      "{{\"study\": {}, \"title\": {}, \"reference\": {}, \"published_hardware\": {}, \"scale\": {}, "
      "\"steps_override\": {}, \"commit\": {}, \"date\": {}, \"hardware\": {},\n \"tables\": [\n  {}]}}\n",
      json_string(recipe.study), json_string(recipe.title), json_string(recipe.reference),
      json_string(recipe.published_hardware), json_string(e.full_scale ? "full" : "small"),
      e.steps_override > 0 ? std::to_string(e.steps_override) : std::string("null"), json_string(e.commit),
      json_string(e.date), list(hardware), joined);
}

}  // namespace kbrain
