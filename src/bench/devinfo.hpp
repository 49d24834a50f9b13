#pragma once
// The device behind a bench target (sysfs), its /sys/class/block/X/stat
// counters, and the O_DIRECT alignment of a path (statx STATX_DIOALIGN where
// the kernel has it, else the logical block size). Field meanings:
// Documentation/block/stat.rst; sar -d columns as sysstat's sar(1) prints them.
#include <cstdint>
#include <string>

#include "bench/result.hpp"
#include "core/blockdev.hpp"

namespace piprov::bench {

/// Raw /sys/class/block/X/stat fields (ios, merges, sectors, ticks in ms).
struct DiskCounters {
  std::uint64_t rios = 0, rmerges = 0, rsectors = 0, rticks = 0;
  std::uint64_t wios = 0, wmerges = 0, wsectors = 0, wticks = 0;
  std::uint64_t in_flight = 0, io_ticks = 0, time_in_queue = 0;
};

/// Parses the text of a stat file (11+ whitespace-separated numbers); zeros when short.
DiskCounters parse_disk_counters(const std::string& text);
/// Reads /sys/class/block/NAME/stat (zeros when unreadable).
DiskCounters read_disk_counters(const std::string& name);
/// Deltas between two samples taken `elapsed_s` apart.
DiskStats disk_delta(const std::string& name, const DiskCounters& a, const DiskCounters& b, double elapsed_s);

/// The bench's device context of a disk core/blockdev.hpp described
/// (model, transport, driver, USB speed, queue settings, write cache).
DeviceInfo device_info_from(const Disk& disk, std::string stat_name);

/// Device context for the block device `devno` (a partition or a whole disk):
/// model, transport, driver (uas / usb-storage for USB, else the disk's
/// driver), USB speed (Mb/s), queue settings, write cache. stat_name is the
/// partition (or disk) whose stat reflects I/O to it.
DeviceInfo device_info_for(unsigned long devno);

/// Alignment in bytes O_DIRECT needs for `path` (file or device): statx
/// STATX_DIOALIGN (Linux 6.1+) max(mem, offset) alignment, else the logical
/// block size of its device, else 4096.
unsigned dio_alignment(const std::string& path, unsigned logical_block_size);

}  // namespace piprov::bench
