// The primary GPT header fitted to a disk's or image's size (gpt_fit.hpp).
#include "keep/gpt_fit.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "core/fd.hpp"

namespace piprov::keep {

namespace {

std::uint64_t gpt_le64(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

void gpt_put_le(std::byte* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

}  // namespace

void fit_gpt_header(const std::string& disk, std::uint64_t disk_bytes) {
  UniqueFd fd(::open(disk.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd) throw io_error("cannot open " + disk, errno);
  std::array<std::byte, 512> h{};
  if (::pread(fd.get(), h.data(), h.size(), 512) != 512) throw io_error("reading the GPT header of " + disk, errno);
  if (std::memcmp(h.data(), "EFI PART", 8) != 0)
    throw Error(ErrorKind::Io, disk + ": no GPT header at byte 512 (a GPT with 4096-byte sectors is not supported)");
  const std::uint32_t header_size = static_cast<std::uint32_t>(gpt_le64(h.data() + 12) & 0xffffffffu);
  if (header_size < 92 || header_size > 512) throw Error(ErrorKind::Io, disk + ": the GPT header's size is invalid");
  const std::uint64_t last_lba = disk_bytes / 512 - 1;
  gpt_put_le(h.data() + 32, last_lba, 8);       // AlternateLBA
  gpt_put_le(h.data() + 48, last_lba - 33, 8);  // LastUsableLBA: 32 sectors of entries and the header after it
  gpt_put_le(h.data() + 16, 0, 4);
  const auto crc = ::crc32(0L, reinterpret_cast<const Bytef*>(h.data()), header_size);
  gpt_put_le(h.data() + 16, crc, 4);
  if (::pwrite(fd.get(), h.data(), h.size(), 512) != 512 || ::fdatasync(fd.get()) != 0)
    throw io_error("writing the GPT header of " + disk, errno);
}

}  // namespace piprov::keep
