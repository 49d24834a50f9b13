#pragma once
// Block devices as a user sees them: whole disks with their partitions, from
// sysfs (/sys/block) + libblkid (labels, fs types) + libmount (mount points).
// A "system disk" holds /, /boot, /boot/firmware, /boot/efi, /home, /var or
// /usr, active swap, or has holders such as LVM/MD/device-mapper (sysfs ABI,
// Documentation/ABI/stable/sysfs-block: holders/): the disks a running Linux
// needs.
#include <sys/types.h>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/mounts.hpp"
#include "core/sysroot.hpp"

namespace piprov {

/// One partition of a disk. Sizes in bytes.
struct Partition {
  std::string name;  ///< "sda1", "mmcblk0p1", "loop3p2"
  std::string path;  ///< "/dev/sda1"
  int number = 0;    ///< 1-based partition number
  std::uint64_t start_bytes = 0;
  std::uint64_t size_bytes = 0;
  std::string label;   ///< filesystem LABEL (libblkid), "" when none
  std::string fstype;  ///< "vfat", "ext4", ... (libblkid), "" when unknown
  std::string uuid;
  std::string partuuid;  ///< partition table entry UUID (libblkid PART_ENTRY_UUID): "1234abcd-02" (MBR), a GUID (GPT)
  dev_t devno = 0;
  std::vector<std::string> mountpoints;
  std::vector<std::string> holders;  ///< /sys/block/D/P/holders (dm-0, md0, ...)
};

/// How a disk is attached, from its kernel name and sysfs path.
enum class Transport { Usb, Mmc, Sata, Nvme, Loop, Virtio, Scsi, Unknown };

/// "usb", "mmc", "sata", "nvme", "loop", "virtio", "scsi", "unknown" (`devices --json`'s "transport").
std::string_view transport_name(Transport t);

/// The driver of a USB storage interface (Linux drivers/usb/storage: uas.c,
/// usb.c "usb-storage", the Bulk-Only Transport).
enum class UsbDriver { Uas, UsbStorage, Unknown };

/// "uas", "usb-storage", "" (unknown).
std::string_view usb_driver_name(UsbDriver d);

/// One whole disk. Sizes in bytes; block sizes in bytes.
struct Disk {
  std::string name;   ///< "sda"
  std::string path;   ///< "/dev/sda"
  std::string model;  ///< sysfs device/model (trimmed), "" when none
  std::string vendor;
  std::string serial;
  Transport transport = Transport::Unknown;
  std::uint64_t size_bytes = 0;
  bool removable = false;
  bool read_only = false;
  bool rotational = false;
  unsigned logical_block_size = 512;
  unsigned physical_block_size = 512;
  unsigned max_sectors_kb = 0;     ///< queue/max_sectors_kb: largest request the kernel sends
  unsigned max_hw_sectors_kb = 0;  ///< queue/max_hw_sectors_kb
  unsigned nr_requests = 0;        ///< queue/nr_requests
  unsigned optimal_io_size = 0;    ///< queue/optimal_io_size (bytes, 0 = none)
  std::string scheduler;           ///< queue/scheduler's selected one ("mq-deadline", "none")
  std::string write_cache;         ///< queue/write_cache ("write back", "write through")
  std::string driver;              ///< uas | usb-storage for USB, else the disk's device driver ("sd", "mmcblk"), loop
  std::string usb_speed;           ///< the USB link's speed in Mb/s as sysfs writes it ("480", "5000"), "" when not USB
  std::string backing_file;        ///< loop devices: loop/backing_file
  dev_t devno = 0;
  std::vector<Partition> partitions;
  std::vector<std::string> mountpoints;  ///< of the whole disk itself (no partition table)
  std::vector<std::string> holders;
  bool system_disk = false;
  std::vector<std::string> system_reasons;  ///< e.g. "partition sda2 is mounted at /"

  /// Every mount point of the disk and its partitions, as "DEV on DIR".
  std::vector<std::string> mounted() const;
  /// The partitions by number, for messages: "1 (vfat, LABEL=BOOT), 2 (ext4)";
  /// "no filesystem" for a partition without one; "none" when there is none.
  std::string partition_list() const;
};

/// All whole disks a user could mean: /sys/block minus ram, zram and loop
/// devices with no backing file, sorted by name. Throws Error{Io} only if
/// /sys/block is unreadable.
std::vector<Disk> list_disks(const SysRoot& root = SysRoot::host());

/// Disk `name` ("sda") from ROOT/sys/class/block/NAME, with its partitions
/// (children with a `partition` attribute), mount points from `mounts` and
/// the system-disk rules applied (matching by the `dev` attribute "MAJ:MIN"
/// against MountEntry::devno and `swaps`). Partition labels and fs types come
/// from libblkid on /dev/PART ("" when that cannot be opened). Never throws.
Disk read_disk(const SysRoot& root, const std::string& name, const std::vector<MountEntry>& mounts,
               const std::vector<dev_t>& swaps);

/// The facts of the whole disk at `whole_disk_path` (classify_path() said
/// WholeDisk; core/write_guard's probe_disk() is the checked entry point for
/// a path the user gave). Never throws.
Disk read_whole_disk(const std::string& whole_disk_path);

/// What a path given by the user is.
enum class TargetKind { WholeDisk, Partition, RegularFile, Missing, Other };

/// Classifies `path`; for a Partition, *parent (when given) receives the
/// whole disk's path.
TargetKind classify_path(const std::string& path, std::string* parent = nullptr);

/// The whole disk holding block device `devno` (a partition or a disk), as
/// its sysfs name ("sda"); "" when unknown. Used for "which disk is / on?".
std::string disk_of_devno(dev_t devno);

/// Reads ROOT/sys/class/block/NAME/ATTR (trimmed), "" when absent.
std::string sysfs_attr(const std::string& name, const std::string& attr, const SysRoot& root = SysRoot::host());

/// The sysfs name of block device `devno` itself (a partition: "sda1"; a
/// disk: "sda"), "" when unknown.
std::string block_name_of_devno(dev_t devno, const SysRoot& root = SysRoot::host());

/// The USB device a disk sits on (Linux ABI Documentation/ABI/testing/sysfs-bus-usb).
struct UsbAttachment {
  bool usb = false;                       ///< the disk's sysfs path runs through a USB bus
  std::string device;                     ///< sysfs name of the USB device ("2-1"), "" when not found
  std::string speed;                      ///< its `speed` attribute in Mb/s ("480", "5000", "1.5"), "" when not found
  UsbDriver driver = UsbDriver::Unknown;  ///< its interface's driver
};

/// The one walk up from ROOT/sys/class/block/NAME (resolved) to the first
/// directory with a `speed` attribute (the USB device; its child on the path
/// is the interface, whose `driver` link says uas or usb-storage). Not USB:
/// usb = false. Never throws.
UsbAttachment usb_attachment(const std::string& disk_name, const SysRoot& root = SysRoot::host());

/// Every USB device in ROOT/sys/bus/usb/devices with an idVendor and
/// idProduct: (sysfs name "2-1", "vid:pid" as sysfs writes them), sorted by name.
std::vector<std::pair<std::string, std::string>> usb_device_ids(const SysRoot& root = SysRoot::host());

}  // namespace piprov
