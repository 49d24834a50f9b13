#include "core/strings.hpp"

#include <algorithm>

namespace piprov {

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  auto b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    auto pos = s.find(sep, start);
    out.emplace_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

std::string shell_quote(std::string_view s) {
  constexpr std::string_view kSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:=";
  if (!s.empty() && s.find_first_not_of(kSafe) == std::string_view::npos) return std::string(s);
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
  return out + "'";
}

std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t cap) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    std::size_t row_min = cur[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > cap) return cap + 1;  // every later row is at least this
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {

/// Length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629,
/// table 3-7 of the Unicode standard: the second byte's range depends on the
/// first), 0 when it is not one.
std::size_t utf8_sequence_length(std::string_view s) {
  auto byte = [&](std::size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  const unsigned b0 = byte(0);
  if (b0 < 0x80) return 1;
  // First byte -> length and the allowed range of the second byte.
  struct Lead {
    unsigned first_lo, first_hi;
    std::size_t len;
    unsigned second_lo, second_hi;
  };
  static constexpr Lead kLeads[] = {
      {0xC2, 0xDF, 2, 0x80, 0xBF}, {0xE0, 0xE0, 3, 0xA0, 0xBF},  // E0: no overlong 3-byte forms
      {0xE1, 0xEC, 3, 0x80, 0xBF}, {0xED, 0xED, 3, 0x80, 0x9F},  // ED: no surrogates
      {0xEE, 0xEF, 3, 0x80, 0xBF}, {0xF0, 0xF0, 4, 0x90, 0xBF},  // F0: no overlong 4-byte forms
      {0xF1, 0xF3, 4, 0x80, 0xBF}, {0xF4, 0xF4, 4, 0x80, 0x8F},  // F4: nothing above U+10FFFF
  };
  for (const auto& l : kLeads) {
    if (b0 < l.first_lo || b0 > l.first_hi) continue;
    if (byte(1) < l.second_lo || byte(1) > l.second_hi) return 0;
    for (std::size_t i = 2; i < l.len; ++i)
      if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
    return l.len;
  }
  return 0;  // 80-C1 (continuation bytes, overlong 2-byte forms), F5-FF
}

}  // namespace

std::size_t utf8_invalid_at(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_sequence_length(s.substr(i));
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string utf8_bom_words(std::string_view first) {
  return "starts with a UTF-8 byte order mark (bytes EF BB BF) before '" + std::string(first) + "'";
}

std::string utf8_bom_fix(std::string_view file) {
  return "save the file as UTF-8 without a byte order mark (e.g. sed -i '1s/^\\xEF\\xBB\\xBF//' " +
         (file.empty() ? std::string("FILE") : shell_quote(file)) + ")";
}

}  // namespace piprov
