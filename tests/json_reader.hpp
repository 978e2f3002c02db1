#pragma once
// A small strict JSON reader for tests: the text must parse as a whole (else std::runtime_error), and its values can
// be looked at. Enough to check what kbrain writes (compare.json, run.json) without a JSON library.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbrain::test {

// ---- A small strict JSON parser: the file must parse as a whole, and its values can be looked at. ----------------

struct Json {
  enum Kind { null, boolean, number, string, array, object } kind = null;
  bool b = false;
  double n = 0;
  std::string s;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;  // in file order

  const Json& operator[](const std::string& key) const {
    for (const auto& [k, v] : members)
      if (k == key) return v;
    throw std::runtime_error("no key " + key);
  }
  bool has(const std::string& key) const {
    for (const auto& m : members)
      if (m.first == key) return true;
    return false;
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : t_(text) {}
  Json parse() {
    Json v = value();
    ws();
    if (i_ != t_.size()) fail("text after the value");
    return v;
  }

 private:
  const std::string& t_;
  std::size_t i_ = 0;

  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool literal(const char* word) {
    const std::string w(word);
    if (t_.compare(i_, w.size(), w) != 0) return false;
    i_ += w.size();
    return true;
  }
  std::string str() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= t_.size()) fail("unterminated string");
      const char c = t_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (i_ >= t_.size()) fail("unterminated escape");
      const char e = t_[i_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'u': {
          if (i_ + 4 > t_.size()) fail("short \\u escape");
          const unsigned code = static_cast<unsigned>(std::stoul(t_.substr(i_, 4), nullptr, 16));
          i_ += 4;
          if (code >= 0x80) fail("test parser handles \\u escapes below 0x80 only");
          out.push_back(static_cast<char>(code));
          break;
        }
        default: fail("bad escape");
      }
    }
  }
  Json value() {
    ws();
    if (i_ >= t_.size()) fail("unexpected end");
    Json v;
    const char c = t_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Json::object;
      if (eat('}')) return v;
      do {
        ws();
        std::string key = str();
        expect(':');
        v.members.emplace_back(std::move(key), value());
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Json::array;
      if (eat(']')) return v;
      do v.items.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::string;
      v.s = str();
    } else if (literal("null")) {
      v.kind = Json::null;
    } else if (literal("true")) {
      v.kind = Json::boolean;
      v.b = true;
    } else if (literal("false")) {
      v.kind = Json::boolean;
    } else {
      // RFC 8259 number: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
      const std::size_t start = i_;
      if (t_[i_] == '-') ++i_;
      const auto digits = [&] {
        const std::size_t from = i_;
        while (i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
        if (i_ == from) fail("expected a digit");
      };
      if (i_ < t_.size() && t_[i_] == '0')
        ++i_;
      else
        digits();
      if (i_ < t_.size() && t_[i_] == '.') {
        ++i_;
        digits();
      }
      if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
        ++i_;
        if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) ++i_;
        digits();
      }
      v.kind = Json::number;
      v.n = std::strtod(t_.substr(start, i_ - start).c_str(), nullptr);
    }
    return v;
  }
};

inline Json parse_json(const std::string& text) { return JsonParser(text).parse(); }

// ---- A sample table ------------------------------------------------------------------------------------------------

}  // namespace kbrain::test
