#pragma once
// Strict reading of one TOML table for the experiment loader (core/config/experiment_config.cpp only; it pulls in
// toml++, so keep it out of device code). Every getter marks its key as used; reject_unknown_keys() then reports
// the first key nobody asked for. All errors are ConfigError with the format of docs/experiment-schema.md:
//   <file>:<line>: <key.path> <what is wrong / what is allowed>
#include <toml++/toml.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/config/experiment_config.hpp"

namespace kbrain::config_detail {

inline std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? std::string(sep) : std::string()) + items[i];
  return out;
}

// "file.toml:12" when the region carries a line, else "file.toml".
inline std::string location(const std::string& file, const toml::source_region& where) {
  return where.begin.line > 0 ? fmt::format("{}:{}", file, where.begin.line) : file;
}

// A short description of a node's type and value for "(got ...)" hints.
inline std::string describe(const toml::node& node) {
  if (auto s = node.as_string()) return fmt::format("the string \"{}\"", s->get());
  if (auto i = node.as_integer()) return fmt::format("the integer {}", i->get());
  if (auto f = node.as_floating_point()) return fmt::format("the float {}", f->get());
  if (auto b = node.as_boolean()) return fmt::format("the boolean {}", b->get());
  if (node.is_array()) return "an array";
  if (node.is_table()) return "a table";
  return "a date/time";
}

inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

class TableReader {
 public:
  // `path` is the dotted path of this table ("" for the document root, "cells.g_cal", ...).
  TableReader(const toml::table& table, std::string path, std::string file)
      : table_(&table), path_(std::move(path)), file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  std::string key_path(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  }
  // Where this table starts ("file:line" of its header, or the file for the root).
  std::string where() const { return path_.empty() ? file_ : location(file_, table_->source()); }
  // Where `key` is written (falls back to the table).
  std::string where(std::string_view key) const {
    const toml::node* node = table_->get(key);
    return node && node->source().begin.line > 0 ? location(file_, node->source()) : where();
  }
  std::string where(const toml::node& node) const { return location(file_, node.source()); }

  bool has(std::string_view key) const { return table_->contains(key); }

  // The node of `key` (nullptr when absent); marks the key as used.
  const toml::node* node(std::string_view key) {
    if (std::find(used_.begin(), used_.end(), key) == used_.end()) used_.emplace_back(key);
    return table_->get(key);
  }

  // ---- errors
  // "<file>:<line>: <key.path> <text>"
  [[noreturn]] void fail(std::string_view key, const std::string& text) const {
    throw ConfigError(fmt::format("{}: {} {}", where(key), key_path(key), text));
  }
  [[noreturn]] void fail_at(const toml::node& node, const std::string& key_path_text, const std::string& text) const {
    throw ConfigError(fmt::format("{}: {} {}", where(node), key_path_text, text));
  }
  // Also points at an unused key that looks like a typo of `key`.
  [[noreturn]] void fail_missing(std::string_view key, std::string_view expected) const {
    const std::string table_name = path_.empty() ? std::string("at the top level") : fmt::format("in [{}]", path_);
    std::string typo;
    for (const Entry& entry : entries_in_file_order())
      if (typo.empty() && entry.key != key && edit_distance(entry.key, key) <= 2 &&
          std::find(used_.begin(), used_.end(), entry.key) == used_.end())
        typo = fmt::format("; found \"{}\" at {}, a misspelling?", entry.key, location(file_, entry.key_source));
    throw ConfigError(
        fmt::format("{}: {} is required ({} {}){}", where(), key_path(key), expected, table_name, typo));
  }
  [[noreturn]] void fail_type(std::string_view key, const toml::node& node, std::string_view expected) const {
    fail_at(node, key_path(key), fmt::format("must be {} (got {})", expected, describe(node)));
  }

  // ---- typed getters: std::nullopt when absent, ConfigError when present with the wrong type
  std::optional<std::string> get_string(std::string_view key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) fail_type(key, *n, "a string");
    return n->as_string()->get();
  }
  std::optional<std::int64_t> get_integer(std::string_view key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_integer()) fail_type(key, *n, "an integer");
    return n->as_integer()->get();
  }
  // Integers are accepted as numbers. NaN and infinities are rejected.
  std::optional<double> get_number(std::string_view key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    return number_value(*n, key_path(key));
  }
  std::optional<bool> get_bool(std::string_view key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) fail_type(key, *n, "a boolean (true or false)");
    return n->as_boolean()->get();
  }
  std::optional<TableReader> get_table(std::string_view key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_table()) fail_type(key, *n, fmt::format("a table ([{}])", key_path(key)));
    return TableReader(*n->as_table(), key_path(key), file_);
  }
  const toml::array* get_array(std::string_view key, std::string_view expected) {
    const toml::node* n = node(key);
    if (!n) return nullptr;
    if (!n->is_array()) fail_type(key, *n, expected);
    return n->as_array();
  }

  std::string require_string(std::string_view key, std::string_view expected) {
    if (auto v = get_string(key)) return *v;
    fail_missing(key, expected);
  }
  std::int64_t require_integer(std::string_view key, std::string_view expected) {
    if (auto v = get_integer(key)) return *v;
    fail_missing(key, expected);
  }

  // A string restricted to `allowed`; `fallback` is used when absent (nullopt => required).
  std::string get_choice(std::string_view key, const std::vector<std::string>& allowed,
                         std::optional<std::string> fallback) {
    std::optional<std::string> value = get_string(key);
    if (!value) {
      if (fallback) return *fallback;
      fail_missing(key, "one of " + join(allowed));
    }
    if (std::find(allowed.begin(), allowed.end(), *value) == allowed.end())
      fail(key, fmt::format("must be one of {} (got \"{}\")", join(allowed), *value));
    return *value;
  }

  struct Entry {
    std::string key;
    const toml::node* value;
    toml::source_region key_source;
  };
  // Keys in file order (toml::table itself is sorted by name).
  std::vector<Entry> entries_in_file_order() const {
    std::vector<Entry> out;
    for (auto&& [k, v] : *table_) out.push_back({std::string(k.str()), &v, k.source()});
    std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
      const auto &pa = a.key_source.begin, &pb = b.key_source.begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    return out;
  }

  // Throws for the first key (in file order) that no getter asked for. `context` qualifies the allowed set,
  // e.g. "with network.type = \"mesh2d\"".
  void reject_unknown_keys(std::string_view context = {}) const {
    for (const Entry& entry : entries_in_file_order()) {
      if (std::find(used_.begin(), used_.end(), entry.key) != used_.end()) continue;
      std::string hint;
      for (const auto& candidate : used_)
        if (hint.empty() && edit_distance(entry.key, candidate) <= 2)
          hint = fmt::format(" (did you mean \"{}\"?)", candidate);
      const std::string table_name = path_.empty() ? std::string("the top level") : fmt::format("[{}]", path_);
      const std::string line =
          entry.key_source.begin.line > 0 ? location(file_, entry.key_source) : location(file_, entry.value->source());
      throw ConfigError(fmt::format("{}: unknown key {}{}; allowed in {}{}: {}", line, key_path(entry.key), hint,
                                    table_name, context.empty() ? "" : " " + std::string(context),
                                    used_.empty() ? std::string("no keys") : join(used_)));
    }
  }

  // Number (integer or float, finite) at `node`, error text naming `what`.
  double number_value(const toml::node& n, const std::string& what) const {
    double v = 0;
    if (auto i = n.as_integer()) {
      v = static_cast<double>(i->get());
    } else if (auto f = n.as_floating_point()) {
      v = f->get();
    } else {
      fail_at(n, what, fmt::format("must be a number (got {})", describe(n)));
    }
    if (!std::isfinite(v)) fail_at(n, what, fmt::format("must be a finite number (got {})", v));
    return v;
  }

 private:
  const toml::table* table_;
  std::string path_;
  std::string file_;
  std::vector<std::string> used_;  // keys asked for, in the order asked
};

}  // namespace kbrain::config_detail
