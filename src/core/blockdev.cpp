#include "core/blockdev.hpp"

#include <blkid/blkid.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <algorithm>
#include <filesystem>
#include <set>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/mounts.hpp"

namespace fs = std::filesystem;

namespace piprov {
namespace {

const fs::path kSysClassBlock = "/sys/class/block";

std::uint64_t to_u64(const std::string& s) {
  try {
    return s.empty() ? 0 : std::stoull(s);
  } catch (...) {
    return 0;
  }
}

dev_t parse_devno(const std::string& majmin) {
  auto colon = majmin.find(':');
  if (colon == std::string::npos) return 0;
  return makedev(static_cast<unsigned>(to_u64(majmin.substr(0, colon))),
                 static_cast<unsigned>(to_u64(majmin.substr(colon + 1))));
}

std::vector<std::string> list_dir_names(const fs::path& p) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(p, ec)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

Transport transport_of(const SysRoot& root, const std::string& name) {
  if (name.rfind("loop", 0) == 0) return Transport::Loop;
  if (name.rfind("mmcblk", 0) == 0) return Transport::Mmc;
  if (name.rfind("nvme", 0) == 0) return Transport::Nvme;
  std::error_code ec;
  std::string real = root.system_path(fs::canonical(root("/sys/class/block") / name, ec));
  if (real.find("/usb") != std::string::npos) return Transport::Usb;
  if (real.find("/ata") != std::string::npos) return Transport::Sata;
  if (real.find("/virtio") != std::string::npos) return Transport::Virtio;
  if (real.find("/host") != std::string::npos) return Transport::Scsi;
  return Transport::Unknown;
}

constexpr EnumName<Transport> kTransportNames[] = {
    {Transport::Usb, "usb"},   {Transport::Mmc, "mmc"},         {Transport::Sata, "sata"},
    {Transport::Nvme, "nvme"}, {Transport::Loop, "loop"},       {Transport::Virtio, "virtio"},
    {Transport::Scsi, "scsi"}, {Transport::Unknown, "unknown"},
};
constexpr EnumName<UsbDriver> kUsbDriverNames[] = {
    {UsbDriver::Uas, "uas"}, {UsbDriver::UsbStorage, "usb-storage"}, {UsbDriver::Unknown, ""}};

unsigned to_unsigned(const std::string& s) { return static_cast<unsigned>(to_u64(s)); }

std::string link_name(const fs::path& link) {
  std::error_code ec;
  fs::path t = fs::read_symlink(link, ec);
  return ec ? std::string() : t.filename().string();
}

// Queue settings, driver and USB link of disk `d` (sysfs dir `sys`).
void read_queue_and_driver(Disk& d, const fs::path& sys, const SysRoot& root) {
  const fs::path q = sys / "queue";
  d.max_hw_sectors_kb = to_unsigned(read_attr(q / "max_hw_sectors_kb"));
  d.nr_requests = to_unsigned(read_attr(q / "nr_requests"));
  d.optimal_io_size = to_unsigned(read_attr(q / "optimal_io_size"));
  d.write_cache = read_attr(q / "write_cache");
  std::string sched = read_attr(q / "scheduler");
  if (auto a = sched.find('['), b = sched.find(']'); a != std::string::npos && b != std::string::npos && b > a)
    sched = sched.substr(a + 1, b - a - 1);
  d.scheduler = sched;
  d.driver = link_name(sys / "device/driver");
  if (d.transport == Transport::Usb) {
    UsbAttachment u = usb_attachment(d.name, root);
    if (u.driver != UsbDriver::Unknown) d.driver = usb_driver_name(u.driver);
    d.usb_speed = u.speed;
  }
  if (d.driver.empty() && d.name.rfind("loop", 0) == 0) d.driver = "loop";
}

void probe_fs(Partition& p) {
  blkid_probe pr = blkid_new_probe_from_filename(p.path.c_str());
  if (!pr) return;  // no permission or gone: leave label/type empty
  blkid_probe_enable_superblocks(pr, 1);
  blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID);
  // The partition's own table entry (PART_ENTRY_UUID = PARTUUID), read from the parent's table by libblkid.
  blkid_probe_enable_partitions(pr, 1);
  blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
  if (blkid_do_safeprobe(pr) == 0) {
    const char* v = nullptr;
    if (blkid_probe_lookup_value(pr, "LABEL", &v, nullptr) == 0) p.label = v;
    if (blkid_probe_lookup_value(pr, "TYPE", &v, nullptr) == 0) p.fstype = v;
    if (blkid_probe_lookup_value(pr, "UUID", &v, nullptr) == 0) p.uuid = v;
    if (blkid_probe_lookup_value(pr, "PART_ENTRY_UUID", &v, nullptr) == 0) p.partuuid = v;
  }
  blkid_free_probe(pr);
}

bool is_system_mountpoint(const std::string& m) {
  static const std::set<std::string> sys = {"/", "/boot", "/boot/firmware", "/boot/efi", "/home", "/var", "/usr"};
  return sys.count(m) > 0;
}

}  // namespace

std::string_view transport_name(Transport t) { return enum_name(kTransportNames, t); }
std::string_view usb_driver_name(UsbDriver d) { return enum_name(kUsbDriverNames, d); }

Disk read_disk(const SysRoot& root, const std::string& name, const std::vector<MountEntry>& mounts,
               const std::vector<dev_t>& swaps) {
  const fs::path sys = root("/sys/class/block") / name;
  Disk d;
  d.name = name;
  d.path = "/dev/" + name;
  d.model = read_attr(sys / "device/model");
  d.vendor = read_attr(sys / "device/vendor");
  d.serial = read_attr(sys / "device/serial");
  if (d.serial.empty()) d.serial = read_attr(sys / "serial");
  d.transport = transport_of(root, name);
  d.size_bytes = to_u64(read_attr(sys / "size")) * 512;
  d.removable = read_attr(sys / "removable") == "1";
  d.read_only = read_attr(sys / "ro") == "1";
  d.rotational = read_attr(sys / "queue/rotational") == "1";
  if (auto v = to_u64(read_attr(sys / "queue/logical_block_size"))) d.logical_block_size = static_cast<unsigned>(v);
  if (auto v = to_u64(read_attr(sys / "queue/physical_block_size"))) d.physical_block_size = static_cast<unsigned>(v);
  d.max_sectors_kb = static_cast<unsigned>(to_u64(read_attr(sys / "queue/max_sectors_kb")));
  d.backing_file = read_attr(sys / "loop/backing_file");
  d.devno = parse_devno(read_attr(sys / "dev"));
  d.holders = list_dir_names(sys / "holders");
  read_queue_and_driver(d, sys, root);

  auto mounts_of = [&](dev_t dn) {
    std::vector<std::string> out;
    for (const auto& m : mounts)
      if (dn != 0 && m.devno == dn) out.push_back(m.target);
    return out;
  };
  d.mountpoints = mounts_of(d.devno);
  for (const auto& m : d.mountpoints)
    if (is_system_mountpoint(m)) d.system_reasons.push_back(d.name + " is mounted at " + m);
  if (std::find(swaps.begin(), swaps.end(), d.devno) != swaps.end())
    d.system_reasons.push_back(d.name + " is active swap");
  if (!d.holders.empty()) d.system_reasons.push_back(d.name + " is held by " + d.holders.front() + " (LVM/MD/dm)");

  for (const auto& child : list_dir_names(sys)) {
    if (child.rfind(name, 0) != 0 || !fs::exists(sys / child / "partition")) continue;
    Partition p;
    p.name = child;
    p.path = "/dev/" + child;
    p.number = static_cast<int>(to_u64(read_attr(sys / child / "partition")));
    p.start_bytes = to_u64(read_attr(sys / child / "start")) * 512;
    p.size_bytes = to_u64(read_attr(sys / child / "size")) * 512;
    p.devno = parse_devno(read_attr(sys / child / "dev"));
    p.holders = list_dir_names(sys / child / "holders");
    p.mountpoints = mounts_of(p.devno);
    probe_fs(p);
    for (const auto& m : p.mountpoints)
      if (is_system_mountpoint(m)) d.system_reasons.push_back("partition " + p.name + " is mounted at " + m);
    if (std::find(swaps.begin(), swaps.end(), p.devno) != swaps.end())
      d.system_reasons.push_back("partition " + p.name + " is active swap");
    if (!p.holders.empty())
      d.system_reasons.push_back("partition " + p.name + " is held by " + p.holders.front() + " (LVM/MD/dm)");
    d.partitions.push_back(std::move(p));
  }
  std::sort(d.partitions.begin(), d.partitions.end(), [](auto& a, auto& b) { return a.number < b.number; });
  d.system_disk = !d.system_reasons.empty();
  return d;
}

namespace {

std::string resolve_name(const std::string& path_or_name) {
  std::error_code ec;
  // "sdb" is a kernel name, unless a file of that name is here (./link0 -> /dev/loop0).
  if (path_or_name.find('/') == std::string::npos && !fs::exists(path_or_name, ec)) return path_or_name;
  fs::path real = fs::canonical(path_or_name, ec);
  if (ec) return {};
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return {};
  fs::path sys =
      fs::path("/sys/dev/block") / (std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev)));
  return fs::canonical(sys, ec).filename().string();
}

}  // namespace

std::vector<std::string> Disk::mounted() const {
  std::vector<std::string> out;
  for (const auto& m : mountpoints) out.push_back(path + " on " + m);
  for (const auto& p : partitions)
    for (const auto& m : p.mountpoints) out.push_back(p.path + " on " + m);
  return out;
}

std::string Disk::partition_list() const {
  std::string out;
  for (const auto& p : partitions) {
    if (!out.empty()) out += ", ";
    out += std::to_string(p.number) + " (" + (p.fstype.empty() ? "no filesystem" : p.fstype) +
           (p.label.empty() ? "" : ", LABEL=" + p.label) + ")";
  }
  return out.empty() ? "none" : out;
}

std::string sysfs_attr(const std::string& name, const std::string& attr, const SysRoot& root) {
  return read_attr(root(kSysClassBlock.string()) / name / attr);
}

std::string block_name_of_devno(dev_t devno, const SysRoot& root) {
  std::error_code ec;
  fs::path sys =
      fs::canonical(root("/sys/dev/block") / (std::to_string(major(devno)) + ":" + std::to_string(minor(devno))), ec);
  return ec ? std::string() : sys.filename().string();
}

std::vector<std::pair<std::string, std::string>> usb_device_ids(const SysRoot& root) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root("/sys/bus/usb/devices"), ec)) {
    auto vid = read_attr(e.path() / "idVendor"), pid = read_attr(e.path() / "idProduct");
    if (vid.size() == 4 && pid.size() == 4) out.emplace_back(e.path().filename().string(), vid + ":" + pid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

UsbAttachment usb_attachment(const std::string& disk_name, const SysRoot& root) {
  std::error_code ec;
  fs::path dev = fs::canonical(root("/sys/class/block") / disk_name, ec);
  if (ec || root.system_path(dev).find("/usb") == std::string::npos) return {};
  UsbAttachment u;
  u.usb = true;
  const fs::path top = fs::canonical(root("/sys/devices"), ec);
  fs::path child;
  for (fs::path p = dev.parent_path(); !p.empty() && p != top && p != p.parent_path(); p = p.parent_path()) {
    if (fs::exists(p / "speed", ec)) {
      if (!child.empty())
        u.driver = parse_enum(kUsbDriverNames, link_name(child / "driver")).value_or(UsbDriver::Unknown);
      u.speed = read_attr(p / "speed");
      u.device = p.filename().string();
      return u;
    }
    child = p;
  }
  return u;
}

std::string disk_of_devno(dev_t devno) {
  std::error_code ec;
  fs::path sys = fs::canonical(
      fs::path("/sys/dev/block") / (std::to_string(major(devno)) + ":" + std::to_string(minor(devno))), ec);
  if (ec) return {};
  if (fs::exists(sys / "partition")) return sys.parent_path().filename().string();
  return sys.filename().string();
}

std::vector<Disk> list_disks(const SysRoot& root) {
  std::error_code ec;
  if (!fs::exists(root("/sys/block"), ec)) throw Error(ErrorKind::Io, "cannot read /sys/block: is sysfs mounted?");
  auto mounts = mount_table();
  auto swaps = active_swap_devices();
  std::vector<Disk> out;
  for (const auto& name : list_dir_names(root("/sys/block"))) {
    if (name.rfind("ram", 0) == 0 || name.rfind("zram", 0) == 0) continue;
    if (name.rfind("loop", 0) == 0 && read_attr(root("/sys/block") / name / "loop/backing_file").empty()) continue;
    out.push_back(read_disk(root, name, mounts, swaps));
  }
  return out;
}

TargetKind classify_path(const std::string& path, std::string* parent) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return TargetKind::Missing;
  if (S_ISREG(st.st_mode)) return TargetKind::RegularFile;
  if (!S_ISBLK(st.st_mode)) return TargetKind::Other;
  std::string name = resolve_name(path);
  if (name.empty()) return TargetKind::Other;
  if (fs::exists(kSysClassBlock / name / "partition")) {
    if (parent) *parent = "/dev/" + disk_of_devno(st.st_rdev);
    return TargetKind::Partition;
  }
  return TargetKind::WholeDisk;
}

Disk read_whole_disk(const std::string& whole_disk_path) {
  return read_disk(SysRoot::host(), resolve_name(whole_disk_path), mount_table(), active_swap_devices());
}

}  // namespace piprov
