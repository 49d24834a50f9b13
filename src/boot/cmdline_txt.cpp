#include "boot/cmdline_txt.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/error.hpp"
#include "core/strings.hpp"

namespace piprov::boot {
namespace {

// [begin, end) of the first line's content (without \r\n).
std::pair<std::size_t, std::size_t> first_line(const std::string& t) {
  auto nl = t.find('\n');
  std::size_t end = nl == std::string::npos ? t.size() : nl;
  if (end > 0 && t[end - 1] == '\r') --end;
  return {0, end};
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t b = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > b) out.emplace_back(s.substr(b, i - b));
  }
  return out;
}

}  // namespace

const std::vector<KnownBridge>& known_uas_bridges() {
  static const std::vector<KnownBridge> v = {
      {"152d:0578", "JMicron JMS567/JMS578 USB-SATA bridge"},
      {"174c:55aa", "ASMedia ASM1051E/ASM1053E USB-SATA bridge"},
      {"174c:1156", "ASMedia ASM1156 USB-SATA bridge"},
      {"0634:5605", "USB-SATA bridge 0634:5605"},
  };
  return v;
}

std::string normalize_vid_pid(std::string_view text) {
  std::string s = to_lower(text);
  bool ok = s.size() == 9 && s[4] == ':';
  for (std::size_t i = 0; ok && i < 9; ++i)
    if (i != 4 && !std::isxdigit(static_cast<unsigned char>(s[i]))) ok = false;
  if (!ok)
    throw Error(ErrorKind::Usage, "'" + std::string(text) +
                                      "' is not a USB VID:PID; write 4 hex digits, ':', 4 hex digits (e.g. 152d:0578, "
                                      "as lsusb prints it)");
  return s;
}

const KnownBridge* find_known_bridge(std::string_view vid_pid) {
  std::string s = to_lower(vid_pid);
  for (const auto& b : known_uas_bridges())
    if (s == b.vid_pid) return &b;
  return nullptr;
}

CmdlineTxt CmdlineTxt::parse(std::string_view bytes) {
  CmdlineTxt c;
  c.text_ = std::string(bytes);
  return c;
}

std::string CmdlineTxt::command_line() const {
  auto [b, e] = first_line(text_);
  return text_.substr(b, e - b);
}

std::vector<std::string> CmdlineTxt::params() const {
  auto [b, e] = first_line(text_);
  return split_ws(std::string_view(text_).substr(b, e - b));
}

std::optional<std::string> CmdlineTxt::get(std::string_view name) const {
  const std::string prefix = std::string(name) + "=";
  std::optional<std::string> out;
  for (const auto& p : params())
    if (p.rfind(prefix, 0) == 0) out = p.substr(prefix.size());  // a later one replaces it, as in the kernel
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> CmdlineTxt::duplicates() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> all;  // name -> values, in first-seen order
  for (const auto& p : params()) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string name = p.substr(0, eq);
    // console= adds a console each time; usb-storage.quirks= has its own rule (usb-quirks-repeated).
    if (name == "console" || name == "usb-storage.quirks") continue;
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& e) { return e.first == name; });
    if (it == all.end()) it = all.insert(all.end(), {name, {}});
    it->second.push_back(p.substr(eq + 1));
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (auto& entry : all) {
    const std::vector<std::string>& values = entry.second;
    if (values.size() < 2) continue;
    if (std::all_of(values.begin(), values.end(), [&](const auto& v) { return v == values.front(); })) continue;
    out.push_back(std::move(entry));
  }
  return out;
}

namespace {
constexpr const char* kCmdlineDoc = "Raspberry Pi documentation, configuration: kernel command line (cmdline.txt)";
Finding cmdline_finding(std::string rule, std::string message, std::string fix) {
  return {std::move(rule), Severity::Error, 0, "", std::move(message), std::move(fix), kCmdlineDoc};
}
}  // namespace

Findings CmdlineTxt::lint() const {
  Findings out;
  auto ps = params();
  if (ps.empty()) {
    out.push_back(cmdline_finding(
        "empty", "cmdline.txt's first line is empty: the kernel gets no root=",
        "write the kernel command line on one line, e.g. ... root=LABEL=writable rootfstype=ext4 rootwait"));
    return out;
  }
  std::istringstream in(text_);
  std::string line;
  int non_empty = 0;
  while (std::getline(in, line))
    if (!split_ws(line).empty()) ++non_empty;
  if (non_empty > 1)
    out.push_back(cmdline_finding("multiple-lines",
                                  "cmdline.txt has " + std::to_string(non_empty) +
                                      " non-empty lines; the firmware passes only the first to the kernel",
                                  "join all parameters onto the first line, separated by spaces"));
  if (!get("root"))
    out.push_back(cmdline_finding("no-root",
                                  "cmdline.txt has no root= parameter: the kernel will not find the root filesystem",
                                  "add root=LABEL=writable (Ubuntu) to the first line"));
  for (const auto& [name, values] : duplicates()) {
    std::vector<std::string> quoted;
    for (const auto& v : values) quoted.push_back(name + "=" + v);
    Finding f = cmdline_finding("duplicate",
                                "cmdline.txt sets " + name + "= " + std::to_string(values.size()) + " times (" +
                                    join(quoted, ", ") + "): the kernel uses the last, " + quoted.back(),
                                "keep only the " + name + "= you mean, once");
    f.severity = Severity::Warning;
    f.line = 1;
    f.key = name;
    out.push_back(std::move(f));
  }
  lint_usb_quirks(out);
  return out;
}

namespace {
constexpr const char* kQuirksKey = "usb-storage.quirks=";
constexpr const char* kQuirksDoc = "Linux admin-guide kernel-parameters: usb-storage.quirks";

// [begin, end) of every usb-storage.quirks= parameter on the first line, in order.
/// [begin, end) of every parameter of the first line that starts with `key` ("name=").
std::vector<std::pair<std::size_t, std::size_t>> cmdline_param_spans(const std::string& text, const std::string& key) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  auto [b, e] = first_line(text);
  for (std::size_t i = b; i < e;) {
    while (i < e && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t start = i;
    while (i < e && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start && text.compare(start, key.size(), key) == 0) out.emplace_back(start, i);
  }
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> quirk_params(const std::string& text) {
  return cmdline_param_spans(text, kQuirksKey);
}

Finding quirk_finding(std::string rule, Severity s, std::string message, std::string fix) {
  return {std::move(rule), s, 1, "usb-storage.quirks", std::move(message), std::move(fix), kQuirksDoc};
}

// One finding per bad entry of the quirks value `value`.
void lint_quirks(std::string_view value, Findings& out) {
  for (const auto& q : parse_usb_quirks(value)) {
    if (!q.error.empty()) {
      out.push_back(quirk_finding("usb-quirk-invalid", Severity::Error,
                                  "usb-storage.quirks entry '" + q.text + "' " + q.error + "; the kernel ignores it",
                                  "write it as VID:PID:FLAGS, e.g. 152d:0578:u"));
      continue;
    }
    if (!q.unknown_flags.empty())
      out.push_back(quirk_finding("usb-quirk-unknown-flag", Severity::Warning,
                                  "usb-storage.quirks entry '" + q.text + "': flag(s) '" + q.unknown_flags +
                                      "' are not usb-storage quirk letters; the kernel ignores them",
                                  "use the letters kernel-parameters.txt lists (u = IGNORE_UAS)"));
    if (const auto* b = find_known_bridge(q.vid_pid); b && !q.ignore_uas())
      out.push_back(quirk_finding("uas-quirk-no-u", Severity::Warning,
                                  "usb-storage.quirks entry '" + q.text + "' lists the " + b->name +
                                      " without u (IGNORE_UAS): it still binds to uas, which hangs or corrupts data "
                                      "on a Pi 4",
                                  "add u to its flags: " + q.vid_pid + ":" + q.flags + "u"));
  }
}
}  // namespace

void CmdlineTxt::lint_usb_quirks(Findings& out) const {
  auto params = quirk_params(text_);
  const std::size_t key = std::string_view(kQuirksKey).size();
  for (const auto& [b, e] : params) lint_quirks(std::string_view(text_).substr(b + key, e - b - key), out);
  if (params.size() > 1)
    out.push_back(quirk_finding(
        "usb-quirks-repeated", Severity::Warning,
        "usb-storage.quirks= is given " + std::to_string(params.size()) + " times; the kernel uses only the last one",
        "merge the entries into one comma-separated usb-storage.quirks= list"));
}

bool CmdlineTxt::has_uas_quirk(std::string_view vid_pid) const {
  auto params = quirk_params(text_);
  if (params.empty()) return false;
  const auto [b, e] = params.back();
  const std::size_t key = std::string_view(kQuirksKey).size();
  const std::string want = to_lower(vid_pid);
  for (const auto& q : parse_usb_quirks(std::string_view(text_).substr(b + key, e - b - key)))
    if (q.vid_pid == want) return q.ignore_uas();
  return false;
}

bool CmdlineTxt::add_uas_quirk(std::string_view vid_pid) {
  std::string vp = normalize_vid_pid(vid_pid);
  if (has_uas_quirk(vp)) return false;
  auto params = quirk_params(text_);
  if (params.empty()) {  // a new parameter at the end of the first line
    auto [b, e] = first_line(text_);
    std::size_t end = e;
    while (end > b && (text_[end - 1] == ' ' || text_[end - 1] == '\t')) --end;
    text_.insert(end, std::string(end > b ? " " : "") + kQuirksKey + vp + ":u");
    return true;
  }
  // The last parameter is the one the kernel uses: add u to the device's first
  // entry there, or append an entry.
  const auto [b, e] = params.back();
  std::size_t pos = b + std::string_view(kQuirksKey).size();
  for (const auto& q : parse_usb_quirks(std::string_view(text_).substr(pos, e - pos))) {
    if (q.vid_pid == vp) {
      text_.insert(pos + q.text.size(), "u");
      return true;
    }
    pos += q.text.size() + 1;
  }
  text_.insert(e, std::string(e == b + std::string_view(kQuirksKey).size() ? "" : ",") + vp + ":u");
  return true;
}

bool CmdlineTxt::set(std::string_view name, std::string_view value) {
  const std::string param = std::string(name) + "=" + std::string(value);
  auto spans = cmdline_param_spans(text_, std::string(name) + "=");
  if (!spans.empty()) {  // the last one is what the kernel uses
    const auto [b, e] = spans.back();
    if (text_.compare(b, e - b, param) == 0) return false;
    text_.replace(b, e - b, param);
    return true;
  }
  auto [b, e] = first_line(text_);
  std::size_t end = e;
  while (end > b && (text_[end - 1] == ' ' || text_[end - 1] == '\t')) --end;
  text_.insert(end, std::string(end > b ? " " : "") + param);
  return true;
}

}  // namespace piprov::boot
