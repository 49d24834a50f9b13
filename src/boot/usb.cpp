#include "boot/usb.hpp"

#include <algorithm>
#include <filesystem>

#include "core/file.hpp"

namespace piprov::boot {

std::vector<UsbDevice> scan_usb_devices(const SysRoot& root) {
  std::vector<UsbDevice> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root("/sys/bus/usb/devices"), ec)) {
    auto vid = read_attr(e.path() / "idVendor"), pid = read_attr(e.path() / "idProduct");
    if (vid.size() == 4 && pid.size() == 4) out.push_back({e.path().filename().string(), vid + ":" + pid});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace piprov::boot
