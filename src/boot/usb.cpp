#include "boot/usb.hpp"

#include <algorithm>
#include <cctype>

#include "core/blockdev.hpp"
#include "core/strings.hpp"

namespace piprov::boot {

std::vector<UsbDevice> scan_usb_devices(const SysRoot& root) {
  std::vector<UsbDevice> out;
  for (auto& [name, id] : usb_device_ids(root)) out.push_back({std::move(name), std::move(id)});
  return out;
}

namespace {
// kernel-parameters.txt, usb-storage.quirks: the documented flag letters.
constexpr std::string_view kQuirkFlags = "abcdefghijklmnoprstuwy";

bool hex4(std::string_view s) {
  return s.size() == 4 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

UsbQuirk parse_quirk(std::string_view text) {
  UsbQuirk q;
  q.text = std::string(text);
  const std::string t = to_lower(text);
  const auto c1 = t.find(':'), c2 = c1 == std::string::npos ? c1 : t.find(':', c1 + 1);
  if (c2 == std::string::npos) {
    q.error = "is not VID:PID:FLAGS (two ':' needed, e.g. 152d:0578:u)";
    return q;
  }
  if (!hex4(std::string_view(t).substr(0, c1)) || !hex4(std::string_view(t).substr(c1 + 1, c2 - c1 - 1))) {
    q.error = "does not start with a 4-hex-digit vendor and product ID (VID:PID as lsusb prints it)";
    return q;
  }
  q.vid_pid = t.substr(0, c2);
  q.flags = t.substr(c2 + 1);
  for (char f : q.flags)
    if (kQuirkFlags.find(f) == std::string_view::npos && q.unknown_flags.find(f) == std::string::npos)
      q.unknown_flags += f;
  return q;
}
}  // namespace

std::vector<UsbQuirk> parse_usb_quirks(std::string_view value) {
  std::vector<UsbQuirk> out;
  if (value.empty()) return out;
  for (std::size_t pos = 0; pos <= value.size();) {
    std::size_t comma = std::min(value.find(',', pos), value.size());
    out.push_back(parse_quirk(value.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  return out;
}

}  // namespace piprov::boot
