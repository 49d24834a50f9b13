// unified_diff(): a small line diff (LCS) for `boot patch --dry-run`. Inputs are
// config.txt-sized (hundreds of lines), so the O(n*m) table is fine.
#include <algorithm>
#include <vector>

#include "boot/config_txt.hpp"

namespace piprov::boot {
namespace {

std::vector<std::string> split_keep(std::string_view s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    auto nl = s.find('\n', pos);
    if (nl == std::string_view::npos) {
      out.emplace_back(s.substr(pos));
      break;
    }
    out.emplace_back(s.substr(pos, nl + 1 - pos));
    pos = nl + 1;
  }
  return out;
}

struct Op {
  char tag;          // ' ', '-', '+'
  std::size_t a, b;  // line indexes (0-based) in a / b at this op
  std::string text;
};

}  // namespace

std::string unified_diff(std::string_view a_text, std::string_view b_text, const std::string& a_label,
                         const std::string& b_label) {
  if (a_text == b_text) return "";
  auto a = split_keep(a_text), b = split_keep(b_text);
  const std::size_t n = a.size(), m = b.size();
  if (n * m > (4u << 20)) {  // not a config.txt: say "replaced" rather than build a huge table
    std::string out =
        "--- " + a_label + "\n+++ " + b_label + "\n@@ -1," + std::to_string(n) + " +1," + std::to_string(m) + " @@\n";
    for (const auto& l : a) out += "-" + l + (l.empty() || l.back() != '\n' ? "\n\\ No newline at end of file\n" : "");
    for (const auto& l : b) out += "+" + l + (l.empty() || l.back() != '\n' ? "\n\\ No newline at end of file\n" : "");
    return out;
  }
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ops.push_back({' ', i, j, a[i]});
      ++i, ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push_back({'-', i, j, a[i]});
      ++i;
    } else {
      ops.push_back({'+', i, j, b[j]});
      ++j;
    }
  }
  std::string out = "--- " + a_label + "\n+++ " + b_label + "\n";
  const std::size_t ctx = 3;
  std::size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].tag == ' ') {
      ++k;
      continue;
    }
    std::size_t start = k >= ctx ? k - ctx : 0;
    std::size_t end = k;  // extend over changes separated by <= 2*ctx unchanged lines
    std::size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].tag != ' ')
        last_change = end;
      else if (end - last_change > 2 * ctx)
        break;
      ++end;
    }
    end = std::min(ops.size(), last_change + ctx + 1);
    std::size_t a_start = ops[start].a, b_start = ops[start].b, a_len = 0, b_len = 0;
    std::string body;
    for (std::size_t x = start; x < end; ++x) {
      std::string line = ops[x].text;
      bool no_nl = line.empty() || line.back() != '\n';
      if (!no_nl) line.pop_back();
      body += ops[x].tag + line + "\n";
      if (no_nl) body += "\\ No newline at end of file\n";
      if (ops[x].tag != '+') ++a_len;
      if (ops[x].tag != '-') ++b_len;
    }
    auto range = [](std::size_t s, std::size_t len) {
      return std::to_string(len == 0 ? s : s + 1) + (len == 1 ? "" : "," + std::to_string(len));
    };
    out += "@@ -" + range(a_start, a_len) + " +" + range(b_start, b_len) + " @@\n" + body;
    k = end;
  }
  return out;
}

}  // namespace piprov::boot
