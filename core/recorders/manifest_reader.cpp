// read_manifest: a strict reader of run.json's flat object (no nesting, which run.json never has).
#include "core/recorders/manifest_reader.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace kbrain {
namespace {

class FlatJson {
 public:
  FlatJson(const std::filesystem::path& file, std::string text) : file_(file), t_(std::move(text)) {}

  RunManifest parse() {
    RunManifest m;
    expect('{');
    if (!eat('}')) {
      do {
        const std::string key = string();
        expect(':');
        ws();
        if (peek() == '"') {
          m.fields[key] = string();
        } else if (const int flag = word("true") ? 1 : word("false") ? 0 : -1; flag >= 0) {
          if (key == "complete")
            m.complete = flag == 1;
          else
            m.numbers[key] = flag;
        } else if (!word("null")) {
          m.numbers[key] = number();
        }
      } while (eat(','));
      expect('}');
    }
    ws();
    if (i_ != t_.size()) fail("text after the object");
    return m;
  }

 private:
  const std::filesystem::path& file_;
  std::string t_;
  std::size_t i_ = 0;

  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(fmt::format("{}: not a flat JSON object: {} at byte {}", file_.string(), why, i_));
  }
  void ws() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
  }
  char peek() const { return i_ < t_.size() ? t_[i_] : '\0'; }
  bool eat(char c) {
    ws();
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  void expect(char c) {
    if (!eat(c)) fail(fmt::format("'{}' expected", c));
  }
  bool word(const char* w) {
    const std::string s = w;
    if (t_.compare(i_, s.size(), s) != 0) return false;
    i_ += s.size();
    return true;
  }
  double number() {
    const char* start = t_.c_str() + i_;
    char* end = nullptr;
    const double v = std::strtod(start, &end);
    if (end == start || !(std::isdigit(static_cast<unsigned char>(*start)) || *start == '-'))
      fail("a string, number, true, false or null expected");
    i_ += static_cast<std::size_t>(end - start);
    return v;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i_ < t_.size() && t_[i_] != '"') {
      char c = t_[i_++];
      if (c == '\\') {
        if (i_ >= t_.size()) break;
        const char e = t_[i_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'r': c = '\r'; break;
          case 'b': c = '\b'; break;
          case 'f': c = '\f'; break;
          case 'u': {
            if (i_ + 4 > t_.size()) fail("a short \\u escape");
            const unsigned long code = std::strtoul(t_.substr(i_, 4).c_str(), nullptr, 16);
            i_ += 4;
            if (code >= 0x80) fail("a \\u escape beyond ASCII");  // run.json writes only control characters so
            c = static_cast<char>(code);
            break;
          }
          default: c = e;  // \" \\ \/
        }
      }
      out.push_back(c);
    }
    if (i_ >= t_.size()) fail("an unterminated string");
    ++i_;
    return out;
  }
};

}  // namespace

RunManifest read_manifest(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot be read", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return FlatJson(file, text.str()).parse();
}

}  // namespace kbrain
