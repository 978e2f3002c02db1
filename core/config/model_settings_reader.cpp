// Declared model tables -> ModelSettings: one generic reader for every model's own keys.
#include "core/config/model_settings_reader.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/config/config_readers.hpp"

namespace kbrain::config_detail {

namespace {

bool in_range(const SettingSpec& s, double v) { return v >= s.min && v <= s.max; }

// The default of `spec` as a value (the text form is what `kbrain models` prints).
SettingValue default_value(const SettingSpec& spec) {
  SettingValue v;
  switch (spec.kind) {
    case SettingSpec::Kind::Integer: v.integer = std::stoll(spec.default_text); v.number = double(v.integer); break;
    case SettingSpec::Kind::Number: v.number = std::stod(spec.default_text); break;
    case SettingSpec::Kind::Choice: v.text = spec.default_text; break;
    case SettingSpec::Kind::Boolean: v.flag = spec.default_text == "true"; break;
    case SettingSpec::Kind::File:
    case SettingSpec::Kind::IntegerList: break;
  }
  return v;
}

}  // namespace

void read_declared_keys(TableReader& t, const TableSpec& table, ModelSettings& out, const std::filesystem::path& base) {
  for (const SettingSpec& spec : table.settings) {
    SettingValue v = default_value(spec);
    v.key = table.name + "." + spec.key;
    v.where = t.where();
    if (!t.has(spec.key)) {
      if (spec.required) t.fail_missing(spec.key, spec.type_text());
      out.put(std::move(v));
      continue;
    }
    v.given = true;
    v.where = t.where(spec.key);
    switch (spec.kind) {
      case SettingSpec::Kind::Integer:
        v.integer = *t.get_integer(spec.key);
        if (!in_range(spec, double(v.integer))) t.fail(spec.key, fmt::format("must be {} (got {})", spec.type_text(), v.integer));
        v.number = double(v.integer);
        break;
      case SettingSpec::Kind::Number:
        v.number = *t.get_number(spec.key);
        if (!in_range(spec, v.number)) t.fail(spec.key, fmt::format("must be {} (got {})", spec.type_text(), v.number));
        break;
      case SettingSpec::Kind::Choice: v.text = t.get_choice(spec.key, spec.choices, std::nullopt); break;
      case SettingSpec::Kind::Boolean: v.flag = *t.get_bool(spec.key); break;
      case SettingSpec::Kind::File: v.file = read_existing_file(t, spec.key, base); break;
      case SettingSpec::Kind::IntegerList: {
        const toml::array* array = t.get_array(spec.key, spec.type_text());
        for (std::size_t i = 0; i < array->size(); ++i) {
          const toml::node& node = *array->get(i);
          const std::string path = fmt::format("{}[{}]", t.key_path(spec.key), i);
          if (!node.is_integer()) t.fail_at(node, path, fmt::format("must be an integer (got {})", describe(node)));
          const std::int64_t value = node.as_integer()->get();
          if (!in_range(spec, double(value)))
            t.fail_at(node, path, fmt::format("must be an integer {} (got {})", spec.range_text(), value));
          v.integers.push_back(value);
        }
        break;
      }
    }
    out.put(std::move(v));
  }
}

void read_declared_tables(TableReader& root, const ModelSchema& schema, ExperimentConfig& cfg,
                          const std::filesystem::path& base) {
  for (const TableSpec& table : schema.tables) {
    if (table.name == "simulation") continue;
    std::optional<TableReader> t = root.get_table(table.name);
    if (t) {
      read_declared_keys(*t, table, cfg.settings, base);
      t->reject_unknown_keys(fmt::format("with model.kind = \"{}\"", schema.kind));
      continue;
    }
    // An absent table: every key takes its default (a required key is reported against the file).
    toml::table empty;
    TableReader absent(empty, table.name, root.file());
    read_declared_keys(absent, table, cfg.settings, base);
  }
}

}  // namespace kbrain::config_detail

