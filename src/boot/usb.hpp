#pragma once
// The USB devices attached to this machine, from sysfs
// (/sys/bus/usb/devices/*/idVendor, idProduct; Linux ABI
// sysfs-bus-usb), for finding USB-SATA bridges that need a UAS quirk.
#include <string>
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

}  // namespace piprov::boot
