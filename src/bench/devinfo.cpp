#include "bench/devinfo.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <filesystem>
#include <sstream>

#include "core/blockdev.hpp"
#include "core/file.hpp"

namespace piprov::bench {

namespace fs = std::filesystem;

DiskCounters parse_disk_counters(const std::string& text) {
  std::istringstream in(text);
  std::uint64_t v[11] = {};
  for (auto& x : v)
    if (!(in >> x)) return {};
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]};
}

DiskCounters read_disk_counters(const std::string& name) {
  return parse_disk_counters(read_system_file("/sys/class/block/" + name + "/stat").value_or(""));
}

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

namespace {
unsigned to_u(const std::string& s) {
  try {
    return static_cast<unsigned>(std::stoul(s));
  } catch (...) {
    return 0;
  }
}
}  // namespace

DeviceInfo device_info_for(unsigned long devno) {
  DeviceInfo d;
  fs::path cls = fs::path("/sys/dev/block") / (std::to_string(major(devno)) + ":" + std::to_string(minor(devno)));
  std::error_code ec;
  fs::path real = fs::canonical(cls, ec);
  if (ec) return d;
  d.stat_name = real.filename().string();
  d.name = disk_of_devno(static_cast<dev_t>(devno));
  if (d.name.empty()) d.name = d.stat_name;
  try {
    Disk disk = probe_disk(d.name);
    d.model = disk.model;
    d.vendor = disk.vendor;
    d.transport = disk.transport;
    d.size_bytes = disk.size_bytes;
    d.rotational = disk.rotational;
  } catch (...) {
  }
  fs::path q = fs::path("/sys/block") / d.name / "queue";
  d.logical_block_size = to_u(read_attr(q / "logical_block_size"));
  d.physical_block_size = to_u(read_attr(q / "physical_block_size"));
  d.nr_requests = to_u(read_attr(q / "nr_requests"));
  d.max_hw_sectors_kb = to_u(read_attr(q / "max_hw_sectors_kb"));
  d.max_sectors_kb = to_u(read_attr(q / "max_sectors_kb"));
  d.optimal_io_size = to_u(read_attr(q / "optimal_io_size"));
  d.write_cache = read_attr(q / "write_cache");
  std::string sched = read_attr(q / "scheduler");
  if (auto a = sched.find('['), b = sched.find(']'); a != std::string::npos && b != std::string::npos && b > a)
    sched = sched.substr(a + 1, b - a - 1);
  d.scheduler = sched;
  // Driver: walk up from the disk's device node; for USB the interface bound
  // to uas or usb-storage, and the USB device's negotiated speed.
  fs::path dev = fs::canonical(fs::path("/sys/block") / d.name / "device", ec);
  if (!ec) {
    if (fs::exists(dev / "driver")) d.driver = fs::canonical(dev / "driver", ec).filename().string();
    for (fs::path p = dev; p.has_parent_path() && p != p.parent_path(); p = p.parent_path()) {
      if (fs::exists(p / "driver")) {
        std::string drv = fs::canonical(p / "driver", ec).filename().string();
        if (drv == "uas" || drv == "usb-storage") d.driver = drv;
      }
      if (fs::exists(p / "speed") && fs::exists(p / "idVendor")) {
        d.usb_speed = read_attr(p / "speed");
        break;
      }
    }
  }
  if (d.driver.empty() && d.name.rfind("loop", 0) == 0) d.driver = "loop";
  return d;
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
