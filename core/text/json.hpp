#pragma once
// JSON text pieces for the hand-written JSON outputs (run.json, compare.json).
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace kbrain::text {

// JSON string literal (quotes included) with the escapes RFC 8259 requires; UTF-8 bytes pass through.
inline std::string json_string(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20)
          out += fmt::format("\\u{:04x}", c);
        else
          out.push_back(ch);
    }
  }
  out.push_back('"');
  return out;
}

// Shortest round-trip decimal; JSON has no NaN or infinity, so those become null.
inline std::string json_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string("null"); }

}  // namespace kbrain::text
