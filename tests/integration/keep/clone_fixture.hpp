#pragma once
// clone's test disks, built with sfdisk, mke2fs, mkfs.vfat and mtools at test time (clone_test.cpp,
// clone_duplicate_test.cpp).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "support/testsupport.hpp"

namespace piprov::test {

inline constexpr std::uint64_t kCloneSrcBytes = 64ull << 20;

/// The source image `dir`/src.img (`bytes`, 64 MiB; disk identifier 0x12345678): p1 FAT "bootfs" (16 MiB,
/// type 0x0c; its file system also left in `dir`/fat.img) whose cmdline.txt names root=PARTUUID=12345678-02,
/// p2 to the end: an ext4 "rootfs" (4 KiB blocks, `big_mib` + ~6 MiB of files; also `dir`/ext.img) whose
/// /etc/fstab names both by PARTUUID=, when `root_type` is 83, else random bytes (no file system anything reads).
std::filesystem::path make_clone_image(const std::filesystem::path& dir, const std::string& root_type = "83",
                                       std::uint64_t bytes = kCloneSrcBytes, int big_mib = 12);

/// A loop device over a new file of `bytes` holding a pattern (old data).
std::unique_ptr<LoopDevice> clone_target_loop(const std::filesystem::path& backing, std::uint64_t bytes);

/// Waits (up to 10 s) until `dev`p`n` exists, after partx -a.
void wait_for_partitions(const std::string& dev, int n);

/// `piprov clone --progress none ARGS`.
RunResult clone_run(const std::string& args);

}  // namespace piprov::test
