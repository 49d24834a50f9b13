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

std::vector<std::string> CmdlineTxt::params() const {
  auto [b, e] = first_line(text_);
  return split_ws(std::string_view(text_).substr(b, e - b));
}

std::optional<std::string> CmdlineTxt::get(std::string_view name) const {
  std::string prefix = std::string(name) + "=";
  for (const auto& p : params())
    if (p.rfind(prefix, 0) == 0) return p.substr(prefix.size());
  return std::nullopt;
}

std::vector<CmdlineFinding> CmdlineTxt::lint() const {
  std::vector<CmdlineFinding> out;
  auto ps = params();
  if (ps.empty()) {
    out.push_back({"empty", "cmdline.txt's first line is empty: the kernel gets no root=",
                   "write the kernel command line on one line, e.g. ... root=LABEL=writable rootfstype=ext4 rootwait"});
    return out;
  }
  std::istringstream in(text_);
  std::string line;
  int non_empty = 0;
  while (std::getline(in, line))
    if (!split_ws(line).empty()) ++non_empty;
  if (non_empty > 1)
    out.push_back({"multiple-lines",
                   "cmdline.txt has " + std::to_string(non_empty) +
                       " non-empty lines; the firmware passes only the first to the kernel",
                   "join all parameters onto the first line, separated by spaces"});
  if (!get("root"))
    out.push_back({"no-root", "cmdline.txt has no root= parameter: the kernel will not find the root filesystem",
                   "add root=LABEL=writable (Ubuntu) to the first line"});
  return out;
}

bool CmdlineTxt::has_uas_quirk(std::string_view vid_pid) const {
  std::string want = to_lower(vid_pid);
  for (const auto& p : params()) {
    if (p.rfind("usb-storage.quirks=", 0) != 0) continue;
    std::string list = to_lower(p.substr(19));
    std::size_t pos = 0;
    while (pos <= list.size()) {
      auto comma = list.find(',', pos);
      std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (item.rfind(want + ":", 0) == 0 && item.substr(want.size() + 1).find('u') != std::string::npos) return true;
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  return false;
}

bool CmdlineTxt::add_uas_quirk(std::string_view vid_pid) {
  std::string vp = normalize_vid_pid(vid_pid);
  if (has_uas_quirk(vp)) return false;
  auto [b, e] = first_line(text_);
  std::string line = text_.substr(b, e - b);
  const std::string key = "usb-storage.quirks=";
  // Append to an existing usb-storage.quirks= list when there is one.
  std::size_t pos = 0;
  while ((pos = line.find(key, pos)) != std::string::npos) {
    if (pos == 0 || std::isspace(static_cast<unsigned char>(line[pos - 1]))) {
      std::size_t end = pos;
      while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
      bool empty_list = end == pos + key.size();
      text_.insert(end, (empty_list ? "" : ",") + vp + ":u");
      return true;
    }
    pos += key.size();
  }
  std::size_t end = e;
  while (end > b && (text_[end - 1] == ' ' || text_[end - 1] == '\t')) --end;
  text_.insert(end, std::string(end > b ? " " : "") + key + vp + ":u");
  return true;
}

}  // namespace piprov::boot
