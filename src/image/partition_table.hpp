#pragma once
// The partition table at the start of an image, read from its first bytes:
// MBR (primary entries) and GPT (512-byte sectors, entries within the first
// 64 KiB). Public layouts: the MBR partition table (IBM PC; Wikipedia "Master
// boot record"), UEFI 2.10 section 5.3 "GUID Partition Table (GPT) Disk Layout".
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace piprov::image {

/// Bytes of the image the table is read from.
inline constexpr std::size_t kPartitionTableBytes = 64u << 10;

/// A partition table's scheme. Its names are libblkid's and libfdisk's
/// label names ("dos" for MBR, "gpt"; blkid_parttable_get_type(3),
/// fdisk_label_get_name(3)); None is named "" (no table), as in JSON.
enum class TableScheme { None, Dos, Gpt };

/// "dos", "gpt", or "" for None.
std::string_view scheme_name(TableScheme s);

/// The scheme named exactly `name` ("dos", "gpt", ""); nullopt for any other
/// name (libblkid's "bsd", "mac", "atari", ...).
std::optional<TableScheme> parse_scheme(std::string_view name);

/// What a partition's type says it should hold.
enum class PartKind { Linux, Fat, Other };

struct PartitionEntry {
  unsigned number = 0;       ///< 1-based, as the kernel names it (sdb2)
  std::uint64_t offset = 0;  ///< bytes from the start of the image
  std::uint64_t size = 0;    ///< bytes
  std::string type;          ///< "0x83" (MBR) or the GPT type GUID in upper case
  PartKind kind = PartKind::Other;
  /// GPT: the entry's unique partition GUID in lower case, as blkid and the kernel's root=PARTUUID=
  /// name it (UEFI 2.10 table 5.6, UniquePartitionGUID at byte 16); "" for MBR (DISKID-NN).
  std::string partuuid;
};

/// The primary GPT header's placement of its backup (UEFI 2.10 table 5.5):
/// LastUsableLBA (byte 48) and AlternateLBA (byte 32), in 512-byte sectors.
struct GptBounds {
  std::uint64_t last_usable_lba = 0;
  std::uint64_t alternate_lba = 0;  ///< the backup header's sector
};

struct PartitionTable {
  TableScheme scheme = TableScheme::None;  ///< None when there is none
  std::vector<PartitionEntry> parts;
  std::string note;  ///< why partitions are not used ("" when they are)
  /// Gpt: the primary header's LBAs; nullopt for Dos and None.
  std::optional<GptBounds> gpt;
};

/// Parses the table from the image's first bytes (`head`, up to
/// kPartitionTableBytes). `image_size` (0 = unknown) bounds the partitions.
/// Never throws: an invalid table gives scheme None or a note and no partitions
/// (extended MBR partitions are kind Other: their logical partitions are
/// written in full).
PartitionTable parse_partition_table(std::span<const std::byte> head, std::uint64_t image_size);

/// `t` unless a partition overlaps the next one or lies outside [512,
/// `image_size`) (0 = unknown: not bounded): then no partitions and a note
/// ("partition 2 lies outside the image"). parse_partition_table() applies it.
PartitionTable bounded_table(PartitionTable t, std::uint64_t image_size);

}  // namespace piprov::image
