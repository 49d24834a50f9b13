#pragma once
// An MBR disk with an extended partition, built with sfdisk, mkfs.vfat and
// mke2fs at test time (backup --shrink's and clone's logical-partition tests).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "support/testsupport.hpp"

namespace piprov::test {

/// A 200 MiB MBR disk file `tmp`/disk with an extended partition: 1 a 16 MiB FAT; 2 the extended
/// partition from 17 MiB to the end, holding logical 5 (16 MiB ext4, at 18 MiB) and logical 6 (at 35 MiB
/// to the end: 165 MiB) whose file system is made by `mkfs6` ("mke2fs ... p6" or "mkfs.vfat p6") from the
/// directory `files`, whose file `a` is 40 MiB of random bytes. Throws when a tool fails.
std::filesystem::path make_logical_disk(const TempDir& tmp, const std::string& mkfs6);

/// `sfdisk -J` of `path`: node number -> {start, size} in sectors.
std::map<int, std::pair<std::uint64_t, std::uint64_t>> sfdisk_entries(const std::string& path);

}  // namespace piprov::test
