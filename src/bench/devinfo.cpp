#include "bench/devinfo.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sstream>

#include "core/blockdev.hpp"
#include "core/mounts.hpp"

namespace piprov::bench {

DiskCounters parse_disk_counters(const std::string& text) {
  std::istringstream in(text);
  std::uint64_t v[11] = {};
  for (auto& x : v)
    if (!(in >> x)) return {};
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]};
}

DiskCounters read_disk_counters(const std::string& name) { return parse_disk_counters(sysfs_attr(name, "stat")); }

DiskStats disk_delta(const std::string& name, const DiskCounters& a, const DiskCounters& b, double elapsed_s) {
  auto d = [](std::uint64_t x, std::uint64_t y) { return y >= x ? y - x : 0; };
  DiskStats s;
  s.device = name;
  s.elapsed_s = elapsed_s;
  s.read_ios = d(a.rios, b.rios);
  s.write_ios = d(a.wios, b.wios);
  s.read_merges = d(a.rmerges, b.rmerges);
  s.write_merges = d(a.wmerges, b.wmerges);
  s.read_sectors = d(a.rsectors, b.rsectors);
  s.write_sectors = d(a.wsectors, b.wsectors);
  s.read_ticks_ms = d(a.rticks, b.rticks);
  s.write_ticks_ms = d(a.wticks, b.wticks);
  s.io_ticks_ms = d(a.io_ticks, b.io_ticks);
  s.time_in_queue_ms = d(a.time_in_queue, b.time_in_queue);
  return s;
}

DeviceInfo device_info_from(const Disk& disk, std::string stat_name) {
  DeviceInfo d;
  d.name = disk.name;
  d.stat_name = std::move(stat_name);
  d.model = disk.model;
  d.vendor = disk.vendor;
  d.transport = transport_name(disk.transport);
  d.driver = disk.driver;
  d.usb_speed = disk.usb_speed;
  d.size_bytes = disk.size_bytes;
  d.rotational = disk.rotational;
  d.logical_block_size = disk.logical_block_size;
  d.physical_block_size = disk.physical_block_size;
  d.nr_requests = disk.nr_requests;
  d.max_hw_sectors_kb = disk.max_hw_sectors_kb;
  d.max_sectors_kb = disk.max_sectors_kb;
  d.optimal_io_size = disk.optimal_io_size;
  d.scheduler = disk.scheduler;
  d.write_cache = disk.write_cache;
  return d;
}

DeviceInfo device_info_for(unsigned long devno) {
  const std::string stat_name = block_name_of_devno(static_cast<dev_t>(devno));
  if (stat_name.empty()) return {};
  std::string name = disk_of_devno(static_cast<dev_t>(devno));
  if (name.empty()) name = stat_name;
  return device_info_from(read_disk(SysRoot::host(), name, mount_table(), active_swap_devices()), stat_name);
}

unsigned dio_alignment(const std::string& path, unsigned lbs) {
#ifdef STATX_DIOALIGN
  struct statx sx {};
  if (statx(AT_FDCWD, path.c_str(), 0, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) &&
      sx.stx_dio_offset_align)
    return std::max(sx.stx_dio_offset_align, sx.stx_dio_mem_align);
#else
  (void)path;
#endif
  return lbs ? lbs : 4096;
}

}  // namespace piprov::bench
