#pragma once
// Whitespace tokenising and strict number parsing shared by the text-file readers (matrix, edge list, g_CaL,
// stimulus files).
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace kbrain::text {

inline bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Splits `line` at whitespace into `tokens` (views into `line`); text after `comment` (if not '\0') is ignored.
inline void split_tokens(std::string_view line, std::vector<std::string_view>& tokens, char comment = '\0') {
  tokens.clear();
  if (comment != '\0') {
    const std::size_t at = line.find(comment);
    if (at != std::string_view::npos) line = line.substr(0, at);
  }
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank_char(line[i])) ++i;
    const std::size_t begin = i;
    while (i < line.size() && !is_blank_char(line[i])) ++i;
    if (i > begin) tokens.push_back(line.substr(begin, i - begin));
  }
}

// The whole token must be a finite decimal number (an optional leading '+' is accepted).
inline bool parse_finite(std::string_view token, double& value) {
  std::string_view digits = token;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  if (digits.empty()) return false;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc() && end == digits.data() + digits.size() && std::isfinite(value);
}

// A token as an error message shows it: quoted, at most 32 characters (then "..."), bytes outside printable ASCII
// as \xNN, so that a binary or foreign file cannot fill, cut or garble the one-line message.
inline std::string quoted_token(std::string_view token) {
  constexpr std::size_t kShown = 32;
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < token.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (token.size() > kShown) out += "...";
  return out + "\"";
}

}  // namespace kbrain::text
