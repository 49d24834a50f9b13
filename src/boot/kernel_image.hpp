#pragma once
// The Pi 4 kernel on the boot partition: what vmlinuz is compressed with, whether
// bytes are an arm64 Linux Image, and decompression vmlinuz -> Image.
// Rules: arm64 Image magic "ARM\x64" at byte 0x38 (Linux
// Documentation/arch/arm64/booting.rst); compressed-kernel magics: gzip 1f 8b
// (RFC 1952), xz fd 37 7a 58 5a 00, zstd 28 b5 2f fd, lz4 frame 04 22 4d 18 and
// lz4 legacy 02 21 4c 18 (what the kernel's own lz4 build uses), bzip2 "BZh".
// Decoding goes through libarchive's raw reader (archive_read_support_format_raw(3)).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace piprov {
class AtomicFile;
}

namespace piprov::boot {

/// How a kernel file is stored.
enum class KernelCompression { None, Gzip, Xz, Zstd, Lz4, Bzip2 };

/// "none", "gzip", "xz", "zstd", "lz4", "bzip2".
const char* to_string(KernelCompression c);

/// Byte offset of the arm64 Image magic, and the magic itself (little-endian u32 0x644d5241).
inline constexpr std::size_t kArm64MagicOffset = 0x38;
inline constexpr char kArm64Magic[4] = {'A', 'R', 'M', 0x64};

/// Compression recognised from the first bytes of a file (at least 6 for xz);
/// None when no known compressed magic is present.
KernelCompression detect_compression(std::span<const std::byte> head);

/// True when `head` (the first >= 64 bytes of a file) is an arm64 Linux Image.
bool is_arm64_image(std::span<const std::byte> head);

/// detect_compression() / is_arm64_image() on the start of a file. Throw Error{Io}
/// when the file cannot be read.
KernelCompression detect_compression_file(const std::filesystem::path& path);
bool file_is_arm64_image(const std::filesystem::path& path);

/// True when `bytes` (a file's first bytes) are a U-Boot binary, whatever the file is called:
/// no arm64 Image magic and U-Boot's version string "U-Boot YYYY.MM" (u-boot's
/// include/version_string.h, `version_string`), which every U-Boot build carries.
bool is_uboot(std::string_view bytes);
/// is_uboot() on the first 4 MiB of a file (U-Boot for the Pi is under 1 MiB). Throws Error{Io}
/// when the file cannot be read.
bool file_is_uboot(const std::filesystem::path& path);

/// What decompress_kernel() did. Sizes in bytes.
struct DecompressResult {
  KernelCompression compression = KernelCompression::None;
  std::uint64_t in_bytes = 0;   ///< size of the source file
  std::uint64_t out_bytes = 0;  ///< size of the Image written
  std::string out_sha256;       ///< SHA-256 of the Image written (hex)
};

/// Largest Image accepted (guards against a decompression bomb on a small FAT): 256 MiB.
inline constexpr std::uint64_t kMaxImageBytes = 256ull << 20;

/// Decodes `src` (gzip, xz, zstd, lz4, bzip2 or an uncompressed Image, which is
/// copied as is) into `out` (not committed). Throws Error{Verify} when the
/// stream is corrupt or truncated, or the result is not an arm64 Image, or is
/// larger than kMaxImageBytes; Error{Io} when reading/writing fails. `out` is
/// then left uncommitted, so the caller's target stays untouched.
DecompressResult decompress_kernel(const std::filesystem::path& src, AtomicFile& out);

/// decompress_kernel() with the decoded Image handed to `sink` in chunks of at
/// most 1 MiB instead of a file; the same checks and errors. With a sink that
/// drops the data, it tells whether `src` would make a valid vmlinux.
DecompressResult decode_kernel(const std::filesystem::path& src,
                               const std::function<void(std::span<const std::byte>)>& sink);

}  // namespace piprov::boot
