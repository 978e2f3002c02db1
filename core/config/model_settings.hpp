#pragma once
// The validated values of the tables a model declares (ModelSchema::tables), keyed "table.key". Every declared key
// has a value (the file's or its default); a model reads them by name in its make_plan, and reports a constraint
// between keys with fail(), which names the file and line as every other config error does. Host-only.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbrain {

struct SettingValue {
  std::string key;                     // "network.neurons"
  std::int64_t integer = 0;
  double number = 0;
  std::string text;                    // Choice
  bool flag = false;
  std::filesystem::path file;          // empty: not given
  std::vector<std::int64_t> integers;  // IntegerList
  bool given = false;                  // written in the file (else the default)
  std::string where;                   // "file:line" of the key, or of the file when not given
};

class ModelSettings {
 public:
  std::int64_t integer(const std::string& key) const { return get(key).integer; }
  double number(const std::string& key) const { return get(key).number; }
  const std::string& text(const std::string& key) const { return get(key).text; }
  bool flag(const std::string& key) const { return get(key).flag; }
  const std::filesystem::path& file(const std::string& key) const { return get(key).file; }
  const std::vector<std::int64_t>& integers(const std::string& key) const { return get(key).integers; }
  bool given(const std::string& key) const { return get(key).given; }
  bool has(const std::string& key) const;
  // ConfigError "<where key is>: <key> <text>"
  [[noreturn]] void fail(const std::string& key, const std::string& text) const;

  void put(SettingValue value);  // replaces a value of the same key (the CLI overrides a file's)
  SettingValue& at(const std::string& key);
  const std::vector<SettingValue>& values() const { return values_; }

 private:
  const SettingValue& get(const std::string& key) const;
  std::vector<SettingValue> values_;
};

}  // namespace kbrain
