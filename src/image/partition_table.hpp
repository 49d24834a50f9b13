#pragma once
// The partition table of an image: MBR (primary entries) and GPT (512-byte
// sectors, entries within the first 64 KiB) from its first bytes, and an
// MBR's logical partitions from the chain of extended boot records (EBRs)
// inside its extended partition, read through a positional read. Public
// layouts: the MBR partition table (IBM PC; Wikipedia "Master boot record"),
// Wikipedia "Extended boot record", UEFI 2.10 section 5.3 "GUID Partition
// Table (GPT) Disk Layout".
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "image/scan.hpp"

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
  /// MBR: an extended partition (types 0x05, 0x0F, 0x85; kind Other), the container of the logical ones: no file
  /// system of its own.
  bool extended = false;
  /// MBR: a logical partition (numbered 5, 6, ...), read from the EBR chain (with_logical_partitions()).
  bool logical = false;
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
  /// Why an extended partition's EBR chain was not read to its end: the logical partitions after the last
  /// one listed are missing ("" when it was, or none was read).
  std::string logical_note;
};

/// Parses the table from the image's first bytes (`head`, up to
/// kPartitionTableBytes). `image_size` (0 = unknown) bounds the partitions.
/// Never throws: an invalid table gives scheme None or a note and no partitions.
/// An MBR's primary entries only: an extended partition is listed (kind Other,
/// `extended`), its logical partitions are not (with_logical_partitions()
/// adds them; write, verify and backup copy the extended partition in full).
PartitionTable parse_partition_table(std::span<const std::byte> head, std::uint64_t image_size);

/// `t` unless a partition overlaps the next one or lies outside [512,
/// `image_size`) (0 = unknown: not bounded): then no partitions and a note
/// ("partition 2 lies outside the image"). parse_partition_table() applies it.
/// Logical partitions lie inside their extended partition: they are not
/// overlaps (their chain's walk bounds them), only the other entries are compared.
PartitionTable bounded_table(PartitionTable t, std::uint64_t image_size);

/// Most EBRs read from one disk, and so most logical partitions (one per
/// EBR): the walk stops there with a note (Linux lists at most 256 partitions
/// of a disk, DISK_MAX_PARTS).
inline constexpr unsigned kMaxLogicalPartitions = 128;

/// The logical partitions of one extended partition.
struct LogicalPartitions {
  std::vector<PartitionEntry> parts;  ///< in chain order, numbered on from the first number asked for
  std::string note;                   ///< why the chain was not read to its end ("" when it was)
  unsigned ebrs = 0;                  ///< EBRs read
};

/// Walks the EBR chain of the extended partition `extended` (bytes within the
/// image) through `read`: each EBR (a 512-byte sector, 55 AA at byte 510, its
/// entries at byte 446) gives in its first entry a logical partition, whose
/// start is relative to the EBR itself, and in its second entry (an extended
/// type) the next EBR, relative to the start of the extended partition
/// (Wikipedia "Extended boot record"). The logical partitions are numbered
/// `first_number`, `first_number` + 1, ..., as Linux numbers them (5 on;
/// block/partitions/msdos.c parse_extended()). Bounded: it stops with a note
/// at an EBR read before (a cycle), a link or a logical partition that does
/// not lie inside `extended`, an EBR without 55 AA, or after `max_ebrs`
/// EBRs; each EBR is read once. Throws only what `read` throws.
LogicalPartitions read_logical_partitions(const PartitionEntry& extended, unsigned first_number, const ReadAtFn& read,
                                          unsigned max_ebrs = kMaxLogicalPartitions);

/// `t` with the logical partitions of each of its MBR extended partitions (in
/// table order, numbered on from 5: Linux numbers them across extended
/// partitions) appended, `logical` set, and the first walk's note in
/// logical_note; `t` as it is for GPT or a table without an extended partition.
/// `t` must be bounded by the image's size (bounded_table()), so that `read`
/// is asked only for bytes inside the image. Throws only what `read` throws.
PartitionTable with_logical_partitions(PartitionTable t, const ReadAtFn& read);

/// The partition of `t` that ends last on the disk and may hold a file
/// system: an MBR's extended partition is a container (its logical
/// partitions are listed themselves: with_logical_partitions()), never the
/// last. nullopt: no partitions; or an EBR chain was not read to its end
/// (t.logical_note set) and an extended partition ends after the candidate's
/// start, so a logical partition after it may be missing and which one ends
/// last is not known (the note says why). Layout: Wikipedia "Extended boot
/// record".
std::optional<PartitionEntry> last_data_partition(const PartitionTable& t);

/// The MBR extended partition of `t` holding the logical partition `p`;
/// nullopt when `p` is not a logical one.
std::optional<PartitionEntry> extended_container_of(const PartitionTable& t, const PartitionEntry& p);

}  // namespace piprov::image
