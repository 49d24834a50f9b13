#pragma once
// Free clusters of a FAT12/16/32 file system, from its boot sector (BPB) and
// its allocation tables, as the Microsoft "FAT: General Overview of On-Disk
// Format" specification (1.03) defines them: a cluster is free when its
// entry is 0 in the FAT. Everything before the data region (boot sector,
// reserved sectors, FATs, the FAT12/16 root directory) is always written.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "image/scan.hpp"

namespace piprov::image {

/// The layout of a FAT volume. Offsets in bytes from the start of the volume.
struct FatLayout {
  unsigned bits = 0;                ///< 12, 16 or 32
  unsigned bytes_per_sector = 0;    ///< 512, 1024, 2048 or 4096
  std::uint64_t cluster_bytes = 0;  ///< bytes per cluster
  std::uint64_t fat_offset = 0;     ///< the first FAT (after the reserved sectors)
  std::uint64_t fat_bytes = 0;      ///< bytes of one FAT
  unsigned fats = 0;                ///< number of FAT copies (1 or 2)
  std::uint64_t data_offset = 0;    ///< cluster 2
  std::uint64_t clusters = 0;       ///< data clusters (numbered 2 .. clusters + 1)
  std::uint64_t volume_bytes = 0;   ///< total sectors * bytes per sector
  std::string label;                ///< BPB volume label, trimmed ("" for "NO NAME")
};

/// Parses the boot sector (at least 512 bytes) of a volume of `volume_bytes`.
/// Returns nullopt with `*why` set when it is not a FAT boot sector or its
/// fields are inconsistent (the volume larger than its partition, a FAT too
/// small for its clusters, ...).
std::optional<FatLayout> parse_fat_boot_sector(std::span<const std::byte> sector, std::uint64_t volume_bytes,
                                               std::string* why);

/// Free clusters as byte ranges from the start of the volume (sorted,
/// merged), from `fats`: every FAT copy, back to back (fats * fat_bytes). A
/// cluster whose entry is not 0 in any copy is used.
std::vector<ByteRange> fat_free_ranges(const FatLayout& l, std::span<const std::byte> fats);

/// Most bytes of FAT copies a scan keeps in memory; a larger FAT is written in full.
inline constexpr std::uint64_t kMaxFatBytes = 16u << 20;

/// A FAT volume at `offset` (`size` bytes) of the image: asks `cap` for its
/// boot sector, then its FATs.
std::unique_ptr<FsScan> make_fat_scan(Capture& cap, std::uint64_t offset, std::uint64_t size);

}  // namespace piprov::image
