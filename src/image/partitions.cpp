#include "image/partitions.hpp"

#include <blkid/blkid.h>
#include <fcntl.h>
#include <linux/blkpg.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/blockdev.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"

namespace fs = std::filesystem;

namespace piprov::image {
namespace {

/// One data partition of a disk's table as libblkid reads it, for BLKPG (an MBR's logical ones included).
struct BlkpgPartition {
  unsigned number = 0;       ///< 1-based, as the kernel names it (sdb6)
  std::uint64_t offset = 0;  ///< bytes from the start of the disk
  std::uint64_t size = 0;    ///< bytes
};

/// The partitions of the table on `disk_path` that hold data (the extended-partition containers left out),
/// sorted by number, as libblkid reads them: what the kernel should list and partx -a would add. Empty when
/// libblkid cannot open or read it.
std::vector<BlkpgPartition> read_blkpg_partitions(const std::string& disk_path) {
  std::vector<BlkpgPartition> out;
  blkid_probe pr = blkid_new_probe_from_filename(disk_path.c_str());
  if (!pr) return out;
  blkid_probe_enable_partitions(pr, 1);
  blkid_probe_enable_superblocks(pr, 0);
  if (blkid_do_fullprobe(pr) == 0)
    if (blkid_partlist ls = blkid_probe_get_partitions(pr)) {
      const int n = blkid_partlist_numof_partitions(ls);
      for (int i = 0; i < n; ++i) {
        blkid_partition p = blkid_partlist_get_partition(ls, i);
        if (!p || blkid_partition_is_extended(p) != 0) continue;
        out.push_back({static_cast<unsigned>(blkid_partition_get_partno(p)),
                       static_cast<std::uint64_t>(blkid_partition_get_start(p)) * 512,
                       static_cast<std::uint64_t>(blkid_partition_get_size(p)) * 512});
      }
    }
  blkid_free_probe(pr);
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.number < b.number; });
  return out;
}

bool in_sysfs(const std::string& disk_path, int number) {
  std::string name = fs::path(partition_path(disk_path, number)).filename().string();
  return !sysfs_attr(name, "dev").empty();
}

/// Adds one partition the kernel did not find itself (its partition-table
/// parser may be missing, e.g. CONFIG_MSDOS_PARTITION=n), as partx -a does.
void add_partition(int fd, const std::string& disk_path, const BlkpgPartition& p) {
  blkpg_partition part{};
  part.start = static_cast<long long>(p.offset);
  part.length = static_cast<long long>(p.size);
  part.pno = static_cast<int>(p.number);
  blkpg_ioctl_arg arg{};
  arg.op = BLKPG_ADD_PARTITION;
  arg.datalen = sizeof(part);
  arg.data = &part;
  if (::ioctl(fd, BLKPG, &arg) != 0 && errno != EBUSY)
    spdlog::warn("{}: cannot add partition {} (BLKPG): {}", disk_path, p.number, std::strerror(errno));
}

}  // namespace

std::string partition_path(const std::string& disk_path, int number) {
  std::string disk = disk_path;
  std::error_code ec;
  if (fs::is_symlink(disk_path, ec)) {
    const fs::path real = fs::canonical(disk_path, ec);  // /dev/disk/by-id/virtio-X -> /dev/vdc
    if (!ec) disk = real.string();
  }
  bool digit = !disk.empty() && std::isdigit(static_cast<unsigned char>(disk.back()));
  return disk + (digit ? "p" : "") + std::to_string(number);
}

std::vector<std::string> reread_partitions(const std::string& given_path, std::chrono::milliseconds timeout) {
  std::error_code ec;
  std::string disk_path = fs::canonical(given_path, ec).string();  // by-id symlinks -> /dev/sdX
  if (ec) disk_path = given_path;
  UniqueFd dev(::open(disk_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!dev) throw io_error("cannot open " + disk_path + " to re-read its partition table", errno);
  const int fd = dev.get();
  bool rescanned = false;
  loop_info64 li{};
  if (::ioctl(fd, LOOP_GET_STATUS64, &li) == 0 && !(li.lo_flags & LO_FLAGS_PARTSCAN)) {
    // A loop device attached without --partscan: turning the flag on rescans.
    li.lo_flags |= LO_FLAGS_PARTSCAN;
    if (::ioctl(fd, LOOP_SET_STATUS64, &li) == 0)
      rescanned = true;
    else
      spdlog::warn("{}: cannot enable partition scanning: {}", disk_path, std::strerror(errno));
  }
  if (!rescanned) {
    // EBUSY: udev is probing the partitions after our write; give it time.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (::ioctl(fd, BLKRRPART) != 0) {
      int e = errno;
      if (e != EBUSY || std::chrono::steady_clock::now() > until) {
        spdlog::warn(
            "{}: the kernel did not re-read the partition table (BLKRRPART: {}); replug the disk to see "
            "the new partitions",
            disk_path, std::strerror(e));
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  std::vector<BlkpgPartition> table = read_blkpg_partitions(disk_path);
  auto all_in_sysfs = [&] {
    return std::all_of(table.begin(), table.end(),
                       [&](auto& p) { return in_sysfs(disk_path, static_cast<int>(p.number)); });
  };
  // BLKRRPART and LOOP_SET_STATUS64 scan synchronously: what the kernel's own
  // parsers found is in sysfs now. Add what they did not find.
  if (!all_in_sysfs())
    for (const auto& p : table)
      if (!in_sysfs(disk_path, static_cast<int>(p.number))) {
        spdlog::info("{}: the kernel did not list partition {}; adding it with BLKPG", disk_path, p.number);
        add_partition(fd, disk_path, p);
      }
  dev.reset();

  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<std::string> present;
  for (;;) {
    present.clear();
    for (const auto& p : table)
      if (fs::exists(partition_path(disk_path, static_cast<int>(p.number))))
        present.push_back(partition_path(disk_path, static_cast<int>(p.number)));
    if (present.size() == table.size() || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (present.size() != table.size())
    spdlog::warn("{}: {} of {} partition nodes appeared within {} ms", disk_path, present.size(), table.size(),
                 timeout.count());
  return present;
}

}  // namespace piprov::image
