#include "provision/image_check.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>

#include "boot/fat_tools.hpp"
#include "core/blockdev.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "image/disk_reader.hpp"
#include "image/fat_map.hpp"
#include "image/image_fs.hpp"
#include "image/partitions.hpp"
#include "image/scan.hpp"
#include "image/write_targets.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

/// The root files boot check and boot patch read (boot/layout.cpp, boot/check.cpp, boot/apt_hook.cpp).
constexpr const char* kImageCheckRootPaths[] = {
    "/etc",
    "/usr/lib/os-release",
    "/var/lib/dpkg/status",
    "/usr/lib/piprov",
    "/usr/lib/systemd/system/piprov-kernel-sync.path",
    "/usr/lib/systemd/system/piprov-kernel-sync.service",
    "/boot/firmware/auto_decompress_kernel",
    "/usr/bin/cloud-init",  // provision/cloud_init.hpp cloud_init_missing()
};

/// Most file bytes copied out of the root fs.
constexpr std::uint64_t kImageCheckRootBytes = 256u << 20;

/// The free clusters of the FAT volume of partition `p` (image byte ranges,
/// image/fat_map.hpp), read through the reader; empty when it is not FAT or
/// cannot be read (then all of it is read).
std::vector<image::ByteRange> image_check_fat_free(image::ImageReader& reader, const image::PartitionEntry& p) {
  image::ReaderCapture cap([&reader](std::span<std::byte> out, std::uint64_t at) { reader.read_at(out, at); },
                           reader.size());
  auto scan = image::make_fat_scan(cap, p.offset, p.size);
  cap.run();
  scan->update();
  return scan->failure().empty() ? scan->free_ranges() : std::vector<image::ByteRange>{};
}

/// The bytes of partition `p` in an anonymous memory file (memfd_create(2)):
/// only its used clusters (the FAT's free clusters are not decoded) and of
/// those the 1 MiB pieces that are not all zeros are stored; the rest reads as zeros.
UniqueFd image_check_partition_memfd(image::ImageReader& reader, const image::PartitionEntry& p) {
  UniqueFd fd(::memfd_create("piprov-boot-partition", MFD_CLOEXEC));
  if (!fd) throw io_error("memfd_create", errno);
  if (::ftruncate(fd.get(), static_cast<off_t>(p.size)) != 0)
    throw io_error("ftruncate of the boot partition's memfd", errno);
  const std::vector<image::ByteRange> free = image_check_fat_free(reader, p);
  std::vector<std::byte> buf(1u << 20);
  auto copy = [&](std::uint64_t begin, std::uint64_t end) {  // image bytes [begin, end), at most buf.size()
    std::span<std::byte> piece(buf.data(), static_cast<std::size_t>(end - begin));
    reader.read_at(piece, begin);
    if (std::all_of(piece.begin(), piece.end(), [](std::byte b) { return b == std::byte{0}; })) return;
    for (std::size_t done = 0; done < piece.size();) {
      const ssize_t w =
          ::pwrite(fd.get(), piece.data() + done, piece.size() - done, static_cast<off_t>(begin - p.offset + done));
      if (w <= 0) throw io_error("write to the boot partition's memfd", errno);
      done += static_cast<std::size_t>(w);
    }
  };
  for (std::uint64_t at = 0; at < p.size; at += buf.size())
    image::for_each_written(p.offset + at, std::min<std::uint64_t>(buf.size(), p.size - at), free, copy);
  return fd;
}

/// The LABEL and UUID of the FAT or ext file system of partition `p` into `out`, as libblkid gives them
/// (FAT: the boot sector's label, "NO NAME" none, and its volume id "ABCD-1234"; ext: s_volume_name and
/// s_uuid at superblock offsets 120 and 104, ext4 documentation "The Super Block"). False when neither.
bool image_check_fs_ids(image::ImageReader& reader, const image::PartitionEntry& e, Partition& out) {
  std::array<std::byte, 2048> head{};
  if (e.size < head.size()) return false;
  reader.read_at(head, e.offset);
  auto text = [&](std::size_t at, std::size_t n) {
    std::string v(reinterpret_cast<const char*>(head.data() + at), n);
    v = v.substr(0, v.find('\0'));
    while (!v.empty() && v.back() == ' ') v.pop_back();
    return v;
  };
  auto byte = [&](std::size_t at) { return std::to_integer<unsigned>(head[at]); };
  if (e.kind == image::PartKind::Fat) {
    std::string why;
    auto fat = image::parse_fat_boot_sector(std::span<const std::byte>(head.data(), 512), e.size, &why);
    if (!fat) return false;
    const std::size_t id = fat->bits == 32 ? 67 : 39;  // BS_VolID (FAT32 BPB, FAT12/16 BPB)
    out.label = fat->label;
    out.uuid = fmt::format("{:02X}{:02X}-{:02X}{:02X}", byte(id + 3), byte(id + 2), byte(id + 1), byte(id));
    return true;
  }
  if (!image::is_ext_superblock(std::span<const std::byte>(head).subspan(image::kExtSuperblockOffset))) return false;
  out.label = text(1024 + 120, 16);
  std::string u;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) u += '-';
    u += fmt::format("{:02x}", byte(1024 + 104 + i));
  }
  out.uuid = u;
  return true;
}

void image_check_replace(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
}

}  // namespace

namespace {
/// IMAGE's reader: a block device (a whole disk) read-only as a raw image, else the image reader.
std::unique_ptr<image::ImageReader> image_tree_reader(const std::string& image) {
  std::error_code ec;
  if (fs::is_block_file(image, ec)) return image::open_disk_reader(image);
  return image::open_image_reader(image);
}
}  // namespace

ImageTree::ImageTree(const std::string& image) : image_(image), owned_(image_tree_reader(image)) {
  reader_ = owned_.get();
  read();
}

ImageTree::ImageTree(image::ImageReader& reader, const std::string& image) : image_(image), reader_(&reader) { read(); }

void ImageTree::read() {
  const std::string& image = image_;
  format_ = image::to_string(reader_->format());
  random_access_ = reader_->random_access();
  note_ = reader_->sequential_note();
  // The table as written, read once. A cut image (partition 1 complete, the root cut): write's message,
  // not "no FAT partition" (trial 7 finding 5); then bounded by the image's end.
  const image::PartitionTable written = image::read_partition_table(*reader_, std::nullopt);
  if (random_access_)
    image::check_complete_image(written, reader_->size(), reader_->format(), image, "nothing was checked");
  const image::PartitionTable table = image::bounded_table(written, reader_->size());
  scheme_ = table.scheme;
  if (scheme_ == image::TableScheme::Dos) {
    std::byte id[4];
    reader_->read_at(id, 440);
    disk_id_ =
        fmt::format("{:02x}{:02x}{:02x}{:02x}", std::to_integer<unsigned>(id[3]), std::to_integer<unsigned>(id[2]),
                    std::to_integer<unsigned>(id[1]), std::to_integer<unsigned>(id[0]));
  }
  auto boot = std::find_if(table.parts.begin(), table.parts.end(),
                           [](const image::PartitionEntry& p) { return p.kind == image::PartKind::Fat; });
  if (boot == table.parts.end()) {
    std::string types;
    for (const auto& p : table.parts) types += (types.empty() ? "" : ", ") + p.type;
    throw Error(ErrorKind::Usage, image + " has no FAT partition (" +
                                      (table.parts.empty() ? (table.note.empty() ? "no partition table" : table.note)
                                                           : "partition types: " + types) +
                                      "): not a Raspberry Pi image, whose boot partition is FAT");
  }
  boot_partition_ = boot->number;
  tmp_ = make_temp_dir("image");
  try {
    boot_dir_ = tmp_ / "boot";
    {
      UniqueFd part = image_check_partition_memfd(*reader_, *boot);
      boot::FatDirOptions copy;
      copy.mount = false;  // a memory file: mtools reads it, the kernel would need a loop device
      copy.dir = boot_dir_;
      boot_.emplace(fmt::format("/proc/{}/fd/{}", ::getpid(), part.get()), copy);
    }
    // The logical partitions (the EBR chain) after the boot partition: a reader that decodes forward only
    // (gzip) reads the EBRs after it rather than starting again for it.
    const image::PartitionTable all = image::with_logical_partitions(
        table, [this](std::span<std::byte> out, std::uint64_t at) { reader_->read_at(out, at); });
    list_partitions(all);
    unsigned opened = 0;
    if (auto root = image::open_root_fs(*reader_, all, &root_note_, root_partition_named(), &opened)) {
      root_partition_ = opened;
      // The root fs read is ext2/3/4 also where list_partitions() did not probe (a sequential image):
      // the root partition is then known to root= and fstab fixes (likely_root()), as on a raw image.
      for (auto& p : disk_.partitions)
        if (p.number == static_cast<int>(opened) && p.fstype.empty()) p.fstype = "ext2/3/4";
      const fs::path root_dir = tmp_ / "root";
      std::uint64_t budget = kImageCheckRootBytes;
      for (const char* path : kImageCheckRootPaths) {
        const fs::path dest = root_dir / std::string(path).substr(1);
        fs::create_directories(dest.parent_path());
        budget -= root->extract(path, dest, budget);
      }
      root_dir_ = root_dir;
    }
  } catch (...) {
    boot_.reset();
    std::error_code ec;
    fs::remove_all(tmp_, ec);
    throw;
  }
}

void ImageTree::list_partitions(const image::PartitionTable& all) {
  std::error_code ec;
  const bool block_device = fs::is_block_file(image_, ec);
  if (block_device) {  // its transport, vendor and model (sysfs): an SD card reader is the SD card
    disk_ = read_whole_disk(image_);
    disk_.partitions.clear();  // from the table read here, not from partition nodes (which may be missing)
  }
  disk_.path = image_;
  std::vector<const image::PartitionEntry*> listed;  // an extended partition is a container: no file system, no root
  for (const auto& e : all.parts)
    if (!e.extended) listed.push_back(&e);
  for (const image::PartitionEntry* e : listed) {
    Partition p;
    p.number = static_cast<int>(e->number);
    // A disk's partitions by their device names (/dev/sdb2), an image file's as "IMAGE partition N".
    p.path = block_device ? image::partition_path(image_, static_cast<int>(e->number))
                          : fmt::format("{} partition {}", image_, e->number);
    p.start_bytes = e->offset;
    p.size_bytes = e->size;
    // Linux's PARTUUID of an MBR partition, logical ones too: DISKID-NN ("%08x-%02x", kernel-parameters root=).
    p.partuuid = scheme_ == image::TableScheme::Dos ? fmt::format("{}-{:02x}", disk_id_, e->number) : e->partuuid;
    if (e->kind == image::PartKind::Fat) {
      p.fstype = "vfat";
    } else if (random_access_ && image::has_ext_superblock(*reader_, e->offset, e->size)) {
      p.fstype = "ext2/3/4";  // (a sequential reader would decode the image twice for it)
    }
    disk_.partitions.push_back(std::move(p));
  }
  labels_known_ = random_access_ && !listed.empty();
  for (std::size_t i = 0; i < listed.size() && labels_known_; ++i)
    labels_known_ = image_check_fs_ids(*reader_, *listed[i], disk_.partitions[i]);
}

std::optional<unsigned> ImageTree::root_partition_named() const {
  std::error_code ec;
  if (!fs::is_regular_file(boot_dir_ / "config.txt", ec)) return std::nullopt;
  try {
    const boot::BootLayout layout = boot::detect_layout(boot_dir_);
    for (PiBoard b : {PiBoard::Pi4, PiBoard::Pi5}) {  // the cmdline file of each SoC family (cmdline=, os_prefix)
      const std::string root = boot::resolve_boot(boot_dir_, layout, b).root;
      const bool known = root.rfind("PARTUUID=", 0) == 0 ? partuuids_known() : labels_known_;
      if (const Partition* p = known ? boot::partition_named_by(disk_, root) : nullptr)
        return static_cast<unsigned>(p->number);
    }
  } catch (const Error&) {  // a config.txt the layout cannot be read from: boot check says why
  }
  return std::nullopt;
}

std::unique_ptr<image::ExtFiles> ImageTree::open_root_fs() const {
  if (!root_partition_) return nullptr;
  for (const auto& p : disk_.partitions)
    if (p.number == static_cast<int>(*root_partition_))
      return std::make_unique<image::ExtFiles>(*reader_, p.start_bytes, p.size_bytes);
  return nullptr;
}

void ImageTree::set_disk(boot::CheckOptions& co) const {
  co.disk = disk_;
  co.disk_partuuids = partuuids_known();
  co.disk_labels = labels_known_;
}

ImageTree::~ImageTree() {
  boot_.reset();
  std::error_code ec;
  fs::remove_all(tmp_, ec);
}

std::string ImageTree::named(std::string text) const {
  // A path inside a directory gets a separator: "IMAGE root fs: /etc/apt/..." (was "IMAGE root fs/etc/apt/...").
  const std::string boot_name = fmt::format("{} partition {}", image_, boot_partition_);
  image_check_replace(text, boot_dir_.string() + "/", boot_name + ": /");
  image_check_replace(text, boot_dir_.string(), boot_name);
  if (!root_dir_) return text;
  image_check_replace(text, root_dir_->string() + "/", image_ + " root fs: /");
  image_check_replace(text, root_dir_->string(), image_ + " root fs");
  return text;
}

bool reads_as_image(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return true;
  return fs::is_block_file(path, ec) && classify_path(path) == TargetKind::WholeDisk;
}

ImageCheck check_image(const ImageCheckOptions& o) {
  ImageCheck c;
  ImageTree tree(o.image);
  std::error_code ec;
  c.options.image_is_disk = fs::is_block_file(o.image, ec);
  c.format = tree.format();
  c.random_access = tree.random_access();
  c.note = tree.sequential_note();
  c.boot_partition = tree.boot_partition();
  c.root_note = tree.root_note();
  c.options.boot_dir = tree.boot_dir();
  c.options.root_dir = tree.root_dir();
  c.options.board = o.board;
  c.options.usb_ids = o.usb_ids;
  c.options.scan_usb = false;  // the image is not this machine's disk
  c.options.image = o.image;   // fixes that patch name provision, not `boot patch IMAGE`
  tree.set_disk(c.options);    // autoboot.txt's boot_partition and root= are judged by the image's partitions
  try {
    c.report = boot::check_boot(c.options);
  } catch (const Error& e) {  // "/tmp/piprov-image-XXXX/boot has no config.txt": the image's partition instead
    throw Error(e.kind(), tree.named(e.what()), e.findings());
  }
  for (auto& f : c.report.findings) {
    f.message = tree.named(f.message);
    f.fix = tree.named(f.fix);
  }
  for (auto& e : c.report.layout.evidence) e = tree.named(e);
  c.options.boot_dir = tree.named(tree.boot_dir().string());
  if (tree.root_dir()) c.options.root_dir = tree.named(tree.root_dir()->string());
  c.stats = tree.stats();
  c.image_bytes = tree.image_bytes();
  return c;
}

nlohmann::json image_check_json(const ImageCheckOptions& o, const ImageCheck& c) {
  nlohmann::json j = boot::check_json(c.options, c.report);
  j["image"] = {{"path", o.image},
                {"format", c.format},
                {"random_access", c.random_access},
                {"note", c.note},
                {"boot_partition", c.boot_partition},
                {"root_read", c.root_note.empty()},
                {"blocks_total", c.stats.blocks_total},
                {"blocks_decoded", c.stats.blocks_decoded},
                {"bytes_decoded", c.stats.bytes_decoded}};
  return j;
}

}  // namespace piprov::provision
