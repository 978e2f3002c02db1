#pragma once
// A key of a table that a model declares for its experiment files (ModelSchema::tables), e.g. the dense plastic
// network's `[network] architecture = "mxm" | "nxm"`. Config validation reads declared tables generically
// (core/config/model_settings_reader.cpp): type, bounds, choices and default come from here, so a model with tables
// of its own adds no reader to core/config. Host-only plain data.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace kbrain {

struct SettingSpec {
  enum class Kind { Integer, Number, Choice, Boolean, File, IntegerList };
  std::string key;
  Kind kind = Kind::Number;
  double min = -std::numeric_limits<double>::infinity();  // Integer, Number, IntegerList elements
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;                       // Choice
  std::string default_text;                               // the default as written in a file ("" with required)
  bool required = false;
  std::string doc;

  static SettingSpec integer(std::string key, double min, double max, std::int64_t fallback, std::string doc) {
    return {std::move(key), Kind::Integer, min, max, {}, std::to_string(fallback), false, std::move(doc)};
  }
  static SettingSpec number(std::string key, double min, double max, double fallback, std::string doc);
  static SettingSpec choice(std::string key, std::vector<std::string> choices, std::string doc) {
    std::string first = choices.front();
    return {std::move(key), Kind::Choice, 0, 0, std::move(choices), std::move(first), false, std::move(doc)};
  }
  static SettingSpec boolean(std::string key, bool fallback, std::string doc) {
    return {std::move(key), Kind::Boolean, 0, 0, {}, fallback ? "true" : "false", false, std::move(doc)};
  }
  // A file path relative to the experiment file; optional (empty when absent).
  static SettingSpec file(std::string key, std::string doc) {
    return {std::move(key), Kind::File, 0, 0, {}, "", false, std::move(doc)};
  }
  static SettingSpec integer_list(std::string key, double min, double max, std::string doc) {
    return {std::move(key), Kind::IntegerList, min, max, {}, "[]", false, std::move(doc)};
  }
  SettingSpec& mandatory() {
    required = true;
    default_text.clear();
    return *this;
  }
  std::string type_text() const;   // "an integer in [1, 100000]", "one of mxm, nxm", ...
  std::string range_text() const;  // "in [1, 100000]", ">= 0", "" (no bounds)
};

// A table of an experiment file that the model declares: `[name]` (dotted for a sub-table). A table named
// "simulation" adds keys to the common [simulation] table.
struct TableSpec {
  std::string name;
  std::vector<SettingSpec> settings;
};

}  // namespace kbrain
