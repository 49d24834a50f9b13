#pragma once
// The USB devices attached to this machine, from sysfs
// (/sys/bus/usb/devices/*/idVendor, idProduct; Linux ABI
// sysfs-bus-usb), for finding USB-SATA bridges that need a UAS quirk.
#include <string>
#include <string_view>
#include <vector>

#include "core/sysroot.hpp"

namespace piprov::boot {

/// One attached USB device.
struct UsbDevice {
  std::string name;     ///< sysfs name ("2-1", "usb1")
  std::string vid_pid;  ///< "152d:0578" (lower-case hex, as sysfs writes it)
};

/// Every device under ROOT/sys/bus/usb/devices with a 4-digit idVendor and
/// idProduct (interfaces such as "2-1:1.0" have none), sorted by name.
/// Never throws: no USB bus is an empty list.
std::vector<UsbDevice> scan_usb_devices(const SysRoot& root = SysRoot::host());

/// One entry of the usb-storage.quirks= kernel parameter. Linux
/// Documentation/admin-guide/kernel-parameters.txt, usb-storage.quirks: entries
/// separated by commas, each VendorID:ProductID:Flags, the IDs 4-digit hex
/// numbers, Flags a set of letters (a b c d e f g h i j k l m n o p r s t u w y;
/// u = IGNORE_UAS); the kernel ignores malformed entries and unknown letters.
struct UsbQuirk {
  std::string text;           ///< the entry as written
  std::string vid_pid;        ///< "152d:0578" lower-case; "" when the entry is malformed
  std::string flags;          ///< lower-case flag letters as written ("u", "" for "152d:0578:")
  std::string error;          ///< why the entry is malformed; "" when it is VID:PID:FLAGS
  std::string unknown_flags;  ///< letters the kernel does not know ("" when none)
  bool ignore_uas() const { return flags.find('u') != std::string::npos; }
};

/// The entries of a usb-storage.quirks value ("152d:0578:u,174c:55aa:u"), in order;
/// an empty value has none, an empty entry (",,") is kept as malformed. Never throws.
std::vector<UsbQuirk> parse_usb_quirks(std::string_view value);

}  // namespace piprov::boot
