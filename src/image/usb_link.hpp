#pragma once
// The USB link a disk sits on, for the write summary's "what limited the
// speed": the USB device above the disk in sysfs and its `speed` attribute.
#include <string>

#include "core/blockdev.hpp"
#include "core/sysroot.hpp"

namespace piprov::image {

/// The USB link a target's disk sits on, from sysfs: the `speed` attribute
/// (Mb/s) of the USB device above /sys/class/block/NAME (Linux ABI
/// Documentation/ABI/testing/sysfs-bus-usb). Ceilings: USB 2 ~35 MB/s,
/// USB 3 ~400 MB/s with UAS, ~250 MB/s with usb-storage (BOT).
struct UsbLink {
  bool usb = false;        ///< the disk sits on a USB bus (false: the other fields are empty)
  std::string device;      ///< sysfs name of the USB device ("2-1"), "" when not found
  double mbps = 0;         ///< link speed in Mb/s (1.5, 12, 480, 5000, 10000, 20000); 0 = unknown
  std::string version;     ///< "USB 1.1", "USB 2.0", "USB 3.0", "USB 3.1", "USB 3.2"; "" = unknown
  double expect_mb_s = 0;  ///< what to expect from the link, in MB/s (decimal); 0 = unknown
  /// One line, e.g. "USB 2.0 link (480 Mb/s): expect ~35 MB/s; use a USB 3 port" ("" when not USB).
  std::string note;
};

/// The link core/blockdev.hpp's usb_attachment() finds for disk NAME (the
/// USB device above it, its speed, its interface's driver). Not USB, or no
/// speed attribute: usb = false / mbps = 0. Never throws.
UsbLink usb_link(const std::string& disk_name, const SysRoot& root = SysRoot::host());

/// The UsbLink for a link speed as sysfs writes it ("480", "5000", "1.5") and
/// the interface driver (usb-storage: expect ~250 MB/s on USB 3; UAS ~400).
UsbLink usb_link_from_speed(const std::string& speed, UsbDriver driver);

}  // namespace piprov::image
