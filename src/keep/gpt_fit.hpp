#pragma once
// A GPT whose disk changed size (clone onto a smaller or larger TARGET, backup --shrink cutting its
// image): the primary header must name the new end before libfdisk accepts the table.
#include <cstdint>
#include <string>

namespace piprov::keep {

/// The primary GPT header of `disk` (a disk or an image file; LBA 1, 512-byte sectors) fitted to
/// `disk_bytes`: AlternateLBA its last sector, LastUsableLBA before the backup entries, the header
/// CRC32 recomputed (UEFI 2.10 section 5.3.2). A header naming another end is refused by libfdisk
/// ("header LBAs are after the disk's last LBA") and by Linux (block/partitions/efi.c
/// is_gpt_valid()); the backup itself is written by the next libfdisk write (a new disk identity,
/// sfdisk --relocate gpt-bak-std). Throws Error{Io} (no GPT header at byte 512, a bad header size,
/// a failed read or write).
void fit_gpt_header(const std::string& disk, std::uint64_t disk_bytes);

}  // namespace piprov::keep
