#pragma once
// `piprov boot check IMAGE` (issue 27 item 3): boot check of an image file
// (.img, .img.xz, .zst, ...) without a disk and without a copy of the image:
// its boot partition (the first FAT partition) and the files boot check reads
// from its root file system are read through the image reader
// (image/image_reader.hpp, image/image_fs.hpp) into a private temporary
// directory, checked with boot::check_boot() as a disk written from the
// image would be, and removed. Nothing is written to the image.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/fat_tools.hpp"
#include "core/board.hpp"
#include "image/image_fs.hpp"
#include "image/image_reader.hpp"
#include "image/partition_table.hpp"

namespace piprov::provision {

/// The boot partition (the first FAT partition; its used clusters) and the root files
/// boot check and boot patch read (/etc, os-release, the dpkg status, the apt
/// hook's files) of IMAGE, read through the image reader into a private
/// temporary directory, removed on destruction. Throws Error{Usage} when
/// IMAGE cannot be opened or has no FAT partition, Error{Io} when mtools
/// cannot read it, and what the reader throws (a corrupt block: its offset).
class ImageTree {
 public:
  /// Opens IMAGE itself: an image file through the image reader, a block device (a whole disk given
  /// as `boot check DISK`) read-only (image::open_disk_reader(), O_RDONLY) as a raw image.
  explicit ImageTree(const std::string& image);
  /// Reads IMAGE through `reader` (opened already: provision's prepared write), which must outlive it.
  ImageTree(image::ImageReader& reader, const std::string& image);
  ~ImageTree();
  ImageTree(const ImageTree&) = delete;
  ImageTree& operator=(const ImageTree&) = delete;

  const std::filesystem::path& boot_dir() const { return boot_dir_; }
  /// The root files; nullopt when the image has no ext2/3/4 root fs (root_note() says why).
  const std::optional<std::filesystem::path>& root_dir() const { return root_dir_; }
  unsigned boot_partition() const { return boot_partition_; }
  const std::string& root_note() const { return root_note_; }
  /// The number of the partition read as the root fs: the one the cmdline file's root= names (for a Pi 4,
  /// else a Pi 5), or the first ext2/3/4 of type Linux when root= names none (image::open_root_fs());
  /// nullopt when none was read. What every reader of "the image's root fs" uses (read_image_cloud_init()).
  std::optional<unsigned> root_partition() const { return root_partition_; }
  /// That root fs opened again through the reader (no table read again); nullptr when none was read.
  std::unique_ptr<image::ExtFiles> open_root_fs() const;
  const std::string& format() const { return format_; }
  bool random_access() const { return random_access_; }
  const std::string& sequential_note() const { return note_; }
  /// The partition-table scheme, and the image's MBR disk identifier ("4ec8ea53") or "" for GPT.
  image::TableScheme scheme() const { return scheme_; }
  const std::string& disk_id() const { return disk_id_; }
  image::ReaderStats stats() const { return reader_->stats(); }
  /// The image's decoded size (bytes).
  std::uint64_t image_bytes() const { return reader_->size(); }
  /// The image's partitions as a Disk (path IMAGE, each "IMAGE partition N": an MBR's logical partitions 5,
  /// 6, ... (the EBR chain) included, its extended partition, a container, left out; fstype "vfat" for FAT,
  /// "ext2/3/4" for an ext superblock, else ""; PARTUUID "DISKID-NN" on MBR, the partition GUID on GPT; on a
  /// random-access image each FAT or ext file system's LABEL and UUID as blkid shows them): what
  /// boot::CheckOptions::disk judges autoboot.txt and root= by.
  const Disk& disk() const { return disk_; }
  /// disk()'s PARTUUIDs are known: an MBR image (DISKID-NN) or a GPT one (its partition GUIDs).
  bool partuuids_known() const { return scheme_ != image::TableScheme::None; }
  /// disk()'s LABELs and UUIDs are known: a random-access image whose every partition is FAT or ext.
  bool labels_known() const { return labels_known_; }
  /// Sets `co`'s disk (disk()) and which of its ids are known, for autoboot.txt and root=.
  void set_disk(boot::CheckOptions& co) const;
  /// `text` with the temporary directories named as "IMAGE partition N" and "IMAGE root fs", a path
  /// inside them after a colon: "IMAGE root fs: /etc/apt/apt.conf.d/...".
  std::string named(std::string text) const;

 private:
  /// Reads the boot partition and the root files into the temporary directory.
  void read();
  /// disk() and labels_known() from the image's partitions `all` (with the logical ones; the extended
  /// partitions that hold them left out).
  void list_partitions(const image::PartitionTable& all);
  /// The number of the partition of disk() that root= of the boot partition's cmdline file names
  /// (for a Pi 4, else a Pi 5: resolve_boot()), when its kind of id is known; nullopt otherwise.
  std::optional<unsigned> root_partition_named() const;
  std::string image_;
  std::unique_ptr<image::ImageReader> owned_;  ///< the reader when ImageTree opened IMAGE
  image::ImageReader* reader_ = nullptr;
  std::filesystem::path tmp_, boot_dir_;
  std::optional<boot::FatDir> boot_;  ///< the boot partition's mtools copy in boot_dir_
  std::optional<std::filesystem::path> root_dir_;
  std::optional<unsigned> root_partition_;
  unsigned boot_partition_ = 0;
  std::string root_note_, format_, note_, disk_id_;
  image::TableScheme scheme_ = image::TableScheme::None;
  bool random_access_ = false, labels_known_ = false;
  Disk disk_;
};

struct ImageCheckOptions {
  std::string image;
  std::optional<PiBoard> board;      ///< --board; nullopt = default_board()
  std::vector<std::string> usb_ids;  ///< --usb-id
};

struct ImageCheck {
  boot::CheckReport report;       ///< findings and layout; paths name "IMAGE partition N" and "IMAGE root fs"
  boot::CheckOptions options;     ///< what check_boot() ran with (its temporary directories are gone)
  image::ReaderStats stats;       ///< what the reader decoded
  std::uint64_t image_bytes = 0;  ///< the image's decoded size
  std::string format;             ///< "xz", "raw", ...
  bool random_access = false;
  std::string note;             ///< the reader's sequential_note(), "" for a random-access image
  unsigned boot_partition = 0;  ///< its number (1-based)
  std::string root_note;        ///< why the root fs was not read ("" when it was)
};

/// IMAGE is read as an image by boot check: a regular file, or a whole disk (a block device that is
/// not a partition, core classify_path()), read read-only like a raw image (ImageTree).
bool reads_as_image(const std::string& path);

/// Checks IMAGE (a whole disk too, read-only, its partitions from its own table: CheckOptions::image_is_disk). Throws
/// Error{Usage} when IMAGE cannot be opened or has no FAT partition, Error{Io} when mtools cannot read its boot
/// partition, and what the reader throws (a corrupt block: its offset).
ImageCheck check_image(const ImageCheckOptions& o);

/// `boot check IMAGE --json`: check_json() plus "image": {path, format,
/// random_access, note, boot_partition, root_read, blocks_total,
/// blocks_decoded, bytes_decoded}.
nlohmann::json image_check_json(const ImageCheckOptions& o, const ImageCheck& c);

}  // namespace piprov::provision
