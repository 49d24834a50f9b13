#include "image/usb_link.hpp"

#include <fmt/format.h>

#include "core/blockdev.hpp"

namespace piprov::image {

UsbLink usb_link_from_speed(const std::string& speed, UsbDriver driver) {
  UsbLink l;
  l.usb = true;
  try {
    l.mbps = speed.empty() ? 0 : std::stod(speed);
  } catch (...) {
    l.mbps = 0;
  }
  std::string advice;
  if (l.mbps <= 0) return l;
  if (l.mbps <= 12) {
    l.version = "USB 1.1";
    l.expect_mb_s = 1;
    advice = "; use a USB 3 port";
  } else if (l.mbps <= 480) {
    l.version = "USB 2.0";
    l.expect_mb_s = 35;
    advice = "; use a USB 3 port";
  } else {
    l.version = l.mbps <= 5000 ? "USB 3.0" : l.mbps <= 10000 ? "USB 3.1" : "USB 3.2";
    // UAS queues commands; usb-storage (BOT) does one at a time.
    l.expect_mb_s = driver == UsbDriver::UsbStorage ? 250 : 400;
    if (driver == UsbDriver::UsbStorage) advice = "; the bridge runs usb-storage (BOT): a UAS bridge reaches ~400 MB/s";
  }
  std::string how = driver == UsbDriver::Unknown ? "" : ", " + std::string(usb_driver_name(driver));
  l.note = fmt::format("{} link ({:g} Mb/s{}): expect ~{:g} MB/s{}", l.version, l.mbps, how, l.expect_mb_s, advice);
  return l;
}

UsbLink usb_link(const std::string& disk_name, const SysRoot& root) {
  const UsbAttachment a = usb_attachment(disk_name, root);
  if (!a.usb) return {};
  if (a.device.empty()) {
    UsbLink l;
    l.usb = true;
    return l;
  }
  UsbLink l = usb_link_from_speed(a.speed, a.driver);
  l.device = a.device;
  return l;
}

}  // namespace piprov::image
