#pragma once
// The images of the free-space tests: a 64 MiB MBR image with a FAT and an
// ext4 made by sfdisk, mkfs.vfat and mke2fs -d, loop devices pre-filled with
// a pattern, and the checks that a written disk holds the image's file
// systems (fsck, every file the same).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "support/testsupport.hpp"

namespace piprov::test {

inline constexpr std::uint64_t kSkipImgBytes = 64ull << 20;
inline constexpr std::uint64_t kSkipDevBytes = 80ull << 20;

/// Runs a shell script, failing the test with its output when it fails.
void sh(const std::string& script);

struct SkipImage {
  std::filesystem::path img;
  std::uint64_t ext_offset = 0;
  std::uint64_t ext_free_bytes = 0;  ///< dumpe2fs: Free blocks * Block size
  std::string dumpe2fs;
};

/// A 64 MiB image: partition 1 FAT (16 MiB, "BOOT") when `with_fat`, then an
/// ext4 ("writable", MBR type `ext_type`) made by mke2fs -d with ~12 MiB of
/// files, 8 MiB block groups; `mke2fs_opts` adds options (-O ^flex_bg).
SkipImage make_skip_image(const std::filesystem::path& dir, bool with_fat, const std::string& ext_type = "83",
                          const std::string& mke2fs_opts = "");

/// A loop device whose backing file first holds a repeating pattern (not zeros).
std::unique_ptr<LoopDevice> patterned_loop(const std::filesystem::path& backing);

/// `piprov write --yes --json FLAGS IMG DEV`, expecting exit 0.
nlohmann::json write_json(const std::string& img, const std::string& dev, const std::string& flags = "");

/// Every file of partition `part` of the image and of the target is the same.
void expect_same_tree(const std::string& img_dev, const std::string& dev, int part, const std::filesystem::path& tmp,
                      bool fat = false);

/// The first kSkipImgBytes of `dev` are the image's.
bool whole_image_on(const std::filesystem::path& img, const std::string& dev);

/// e2fsck -fn and fsck.vfat -n pass on the target, and both partitions hold the image's files.
void run_fsck_and_compare(const SkipImage& s, const std::string& dev, const std::filesystem::path& tmp);

}  // namespace piprov::test
