#include "boot/kernel_image.hpp"

#include <archive.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "core/hashing.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

bool starts_with(std::span<const std::byte> head, std::initializer_list<unsigned> magic) {
  if (head.size() < magic.size()) return false;
  std::size_t i = 0;
  for (unsigned m : magic)
    if (std::to_integer<unsigned>(head[i++]) != m) return false;
  return true;
}

std::vector<std::byte> read_head(const fs::path& path, std::size_t n) {
  const std::string head = read_file_part(path, 0, n);
  const auto bytes = std::as_bytes(std::span(head));
  return {bytes.begin(), bytes.end()};
}

// CRC-32 as gzip's trailer stores it (RFC 1952 §8), through zlib's crc32().
class Crc32 {
 public:
  void update(std::span<const std::byte> data) {
    crc_ = ::crc32(crc_, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
  }
  std::uint32_t value() const { return static_cast<std::uint32_t>(crc_); }

 private:
  uLong crc_ = ::crc32(0L, Z_NULL, 0);
};

// The last 8 bytes of a gzip file: CRC32 and ISIZE (size mod 2^32), little-endian.
std::pair<std::uint32_t, std::uint32_t> gzip_trailer(const fs::path& path, std::uint64_t file_size) {
  const std::string t = file_size >= 8 ? read_file_part(path, file_size - 8, 8) : std::string();
  if (t.size() != 8) throw Error(ErrorKind::Verify, path.string() + " is too short to be a gzip file");
  auto le = [&](std::size_t o) {
    auto at = [&](std::size_t i) { return std::uint32_t(static_cast<unsigned char>(t[o + i])); };
    return at(0) | at(1) << 8 | at(2) << 16 | at(3) << 24;
  };
  return {le(0), le(4)};
}

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

}  // namespace

namespace {
constexpr EnumName<KernelCompression> kKernelCompressionNames[] = {
    {KernelCompression::None, "none"}, {KernelCompression::Gzip, "gzip"}, {KernelCompression::Xz, "xz"},
    {KernelCompression::Zstd, "zstd"}, {KernelCompression::Lz4, "lz4"},   {KernelCompression::Bzip2, "bzip2"},
};
}  // namespace

const char* to_string(KernelCompression c) { return enum_name(kKernelCompressionNames, c).data(); }

KernelCompression detect_compression(std::span<const std::byte> head) {
  if (starts_with(head, {0x1f, 0x8b})) return KernelCompression::Gzip;
  if (starts_with(head, {0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00})) return KernelCompression::Xz;
  if (starts_with(head, {0x28, 0xb5, 0x2f, 0xfd})) return KernelCompression::Zstd;
  if (starts_with(head, {0x04, 0x22, 0x4d, 0x18}) || starts_with(head, {0x02, 0x21, 0x4c, 0x18}))
    return KernelCompression::Lz4;
  if (starts_with(head, {'B', 'Z', 'h'})) return KernelCompression::Bzip2;
  return KernelCompression::None;
}

bool is_arm64_image(std::span<const std::byte> head) {
  if (head.size() < kArm64MagicOffset + 4) return false;
  return std::memcmp(head.data() + kArm64MagicOffset, kArm64Magic, 4) == 0;
}

KernelCompression detect_compression_file(const fs::path& path) { return detect_compression(read_head(path, 8)); }

bool file_is_arm64_image(const fs::path& path) { return is_arm64_image(read_head(path, 64)); }

bool is_uboot(std::string_view bytes) {
  if (bytes.size() >= 64 && is_arm64_image(std::as_bytes(std::span(bytes.data(), 64)))) return false;
  constexpr std::string_view tag = "U-Boot ";
  for (auto at = bytes.find(tag); at != std::string_view::npos; at = bytes.find(tag, at + 1)) {
    auto v = bytes.substr(at + tag.size(), 7);  // "2024.01"
    auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
    if (v.size() == 7 && digit(v[0]) && digit(v[1]) && digit(v[2]) && digit(v[3]) && v[4] == '.' && digit(v[5]) &&
        digit(v[6]))
      return true;
  }
  return false;
}

bool file_is_uboot(const fs::path& path) { return is_uboot(read_file_part(path, 0, std::size_t{4} << 20)); }

DecompressResult decode_kernel(const fs::path& src, const std::function<void(std::span<const std::byte>)>& sink) {
  DecompressResult res;
  res.compression = detect_compression_file(src);
  std::error_code ec;
  res.in_bytes = fs::file_size(src, ec);
  if (ec) throw io_error("cannot stat " + src.string(), ec.value());

  std::unique_ptr<archive, ArchiveDeleter> a(archive_read_new());
  if (!a) throw Error(ErrorKind::Io, "libarchive: out of memory");
  archive_read_support_filter_all(a.get());
  archive_read_support_format_raw(a.get());
  if (archive_read_open_filename(a.get(), src.c_str(), 1 << 20) != ARCHIVE_OK)
    throw Error(ErrorKind::Io, "cannot read " + src.string() + ": " + archive_error_string(a.get()));
  archive_entry* entry = nullptr;
  if (archive_read_next_header(a.get(), &entry) != ARCHIVE_OK)
    throw Error(ErrorKind::Verify,
                src.string() + " is not a readable kernel (" +
                    std::string(archive_error_string(a.get()) ? archive_error_string(a.get()) : "?") + ")");
  Sha256 hash;
  Crc32 crc;
  std::vector<std::byte> buf(1 << 20);
  std::vector<std::byte> head;
  for (;;) {
    la_ssize_t n = archive_read_data(a.get(), buf.data(), buf.size());
    if (n < 0) {
      const char* why = archive_error_string(a.get());
      throw Error(ErrorKind::Verify, src.string() + " is corrupt or truncated (" + to_string(res.compression) + ": " +
                                         (why ? why : "decode error") + "); nothing was replaced");
    }
    if (n == 0) break;
    std::span<const std::byte> chunk(buf.data(), static_cast<std::size_t>(n));
    if (head.size() < 64)
      head.insert(head.end(), chunk.begin(), chunk.begin() + std::min<std::size_t>(64 - head.size(), chunk.size()));
    res.out_bytes += chunk.size();
    if (res.out_bytes > kMaxImageBytes)
      throw Error(ErrorKind::Verify,
                  src.string() + " decodes to more than 256 MiB: not a kernel; nothing was replaced");
    hash.update(chunk);
    if (res.compression == KernelCompression::Gzip) crc.update(chunk);
    sink(chunk);
  }
  // libarchive's gzip reader does not check the trailer: do it, so a flipped bit is caught.
  // (Kernel packages write single-member gzip files; the trailer covers the whole output.)
  if (res.compression == KernelCompression::Gzip) {
    auto [want_crc, want_size] = gzip_trailer(src, res.in_bytes);
    if (crc.value() != want_crc || static_cast<std::uint32_t>(res.out_bytes) != want_size)
      throw Error(ErrorKind::Verify, src.string() +
                                         " is corrupt (gzip CRC32/size trailer does not match the "
                                         "decoded data); nothing was replaced");
  }
  if (!is_arm64_image(head))
    throw Error(ErrorKind::Verify, src.string() + " (" + to_string(res.compression) +
                                       ") does not decode to an arm64 Linux Image (no \"ARM\\x64\" magic at "
                                       "byte 0x38); nothing was replaced");
  res.out_sha256 = hash.hex();
  return res;
}

DecompressResult decompress_kernel(const fs::path& src, AtomicFile& out) {
  return decode_kernel(src, [&out](std::span<const std::byte> chunk) { out.write(chunk); });
}

}  // namespace piprov::boot
