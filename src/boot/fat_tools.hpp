#pragma once
// Access to a FAT boot partition without a kernel vfat driver, through mtools
// (mcopy/mdel): `provision` falls back to it when mounting vfat fails with
// "unknown filesystem type" (kernels built without CONFIG_VFAT_FS, e.g. some
// containers and CI hosts). Copy out, patch the copy, write back what changed,
// read back and compare.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace piprov::boot {

/// True when `mcopy` can be run.
bool mtools_available();

/// Copies every file of the FAT filesystem on `device` into `dir` (mcopy -s -p -m).
/// Throws Error{Io} with mtools' message.
void fat_copy_out(const std::string& device, const std::filesystem::path& dir);

/// Copies the file `name` of the FAT filesystem on `device` into `dir` (mcopy -p -m -n); false when
/// mcopy fails (no such file). Throws Error{Io} when mcopy cannot be run.
bool fat_copy_file_out(const std::string& device, const std::string& name, const std::filesystem::path& dir);

/// SHA-256 of every regular file under `dir`, by relative path.
std::map<std::string, std::string> tree_hashes(const std::filesystem::path& dir);

/// Writes the files of `dir` that differ from `before` (new or changed, in
/// subdirectories too: missing directories are made with mmd) back to
/// `device`, config.txt and cmdline files last, deletes
/// the ones that were removed, then copies the partition out again and
/// compares every file. Returns the actions ("wrote vmlinux", "deleted ...").
/// Throws Error{Io} (mtools failure) or Error{Verify} (read-back differs).
std::vector<std::string> fat_write_back(const std::string& device, const std::filesystem::path& dir,
                                        const std::map<std::string, std::string>& before);

}  // namespace piprov::boot
