#include "eeprom/image.hpp"

#include <fmt/format.h>
#include <cctype>

#include "core/error.hpp"
#include "core/file.hpp"

namespace piprov::eeprom {
namespace {
std::uint32_t be32(const std::string& b, std::size_t off) {
  auto u = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(b[off + i])); };
  return u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
}
void put_be32(std::string& b, std::size_t off, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + static_cast<std::size_t>(i)] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
}
Error corrupt(const std::string& name, std::string what) {
  return Error(ErrorKind::Usage, fmt::format("{}: EEPROM image is corrupt: {}; use an image from rpi-eeprom "
                                             "(/lib/firmware/raspberrypi/bootloader*)",
                                             name, what));
}
}  // namespace

EepromImage EepromImage::parse(std::string bytes, std::string name) {
  if (bytes.size() != kPi4ImageSize && bytes.size() != kPi5ImageSize)
    throw Error(ErrorKind::Usage,
                fmt::format("{}: {} bytes, expected {} (Pi 4) or {} (Pi 5): truncated or not a pieeprom.bin", name,
                            bytes.size(), kPi4ImageSize, kPi5ImageSize));
  EepromImage img;
  img.bytes_ = std::move(bytes);
  img.name_ = std::move(name);
  const std::string& b = img.bytes_;
  std::size_t off = 0;
  while (off + 8 <= b.size()) {
    std::uint32_t magic = be32(b, off), length = be32(b, off + 4);
    if (magic == 0 || magic == 0xffffffffu) break;
    if ((magic & kMagicMask) != kMagic)
      throw corrupt(img.name_, fmt::format("bad section magic 0x{:08x} at offset {}", magic, off));
    std::uint64_t end = static_cast<std::uint64_t>(off) + 8 + length;
    if (end > b.size())
      throw corrupt(img.name_, fmt::format("section at offset {} (length {}) runs past the end of the image ({} bytes)",
                                           off, length, b.size()));
    ImageSection s{magic, off, length, {}};
    if (magic == kFileMagic) {
      if (length < 16)
        throw corrupt(img.name_, fmt::format("file section at offset {} has length {} (< 16)", off, length));
      for (std::size_t i = 0; i < 12; ++i)
        if (char c = b[off + 8 + i]; c != '\0') s.filename += c;
    }
    img.sections_.push_back(std::move(s));
    off = static_cast<std::size_t>((end + 7) & ~std::uint64_t{7});
  }
  return img;
}

EepromImage EepromImage::load(const std::filesystem::path& path) {
  // Read at most the largest image (Pi 5, 2 MiB): a device such as /dev/zero
  // or a disk image must not be slurped whole.
  auto bytes = read_file_capped(path.string(), 2097152, "EEPROM image");
  if (!bytes)
    throw Error(ErrorKind::Usage, fmt::format("{} is larger than any bootloader EEPROM image (512 KiB Pi 4, 2 MiB "
                                              "Pi 5); give a pieeprom.bin",
                                              path.string()));
  return parse(std::move(*bytes), path.string());
}

std::optional<std::size_t> EepromImage::find_file(std::string_view name) const {
  for (std::size_t i = 0; i < sections_.size(); ++i)
    if (sections_[i].is_file() && sections_[i].filename == name) return i;
  return std::nullopt;
}

std::string EepromImage::file(std::string_view name) const {
  auto i = find_file(name);
  if (!i)
    throw Error(ErrorKind::Usage, fmt::format("{}: no {} section in this EEPROM image (is it a bootloader "
                                              "pieeprom.bin, not recovery.bin or vl805.bin?)",
                                              name_, name));
  const auto& s = sections_[*i];
  return bytes_.substr(s.offset + 4 + kFileHeaderLen, s.length - 16);
}

std::string EepromImage::with_file(std::string_view name, std::string_view content) const {
  auto idx = find_file(name);
  if (!idx)
    throw Error(ErrorKind::Usage, fmt::format("{}: no {} section to replace in this EEPROM image", name_, name));
  if (content.size() > kMaxFileSize)
    throw Error(ErrorKind::Usage, fmt::format("{} would be {} bytes; the maximum is {} bytes (rpi-eeprom-config "
                                              "MAX_FILE_SIZE): shorten the config",
                                              name, content.size(), kMaxFileSize));
  const std::size_t size = bytes_.size();
  const std::size_t hdr = sections_[*idx].offset;
  const bool is_last = *idx + 1 == sections_.size();
  std::size_t next = size - kEraseAlign;  // never pad into the bootloader's scratch page
  for (std::size_t i = *idx + 1; i < sections_.size(); ++i)
    if (!sections_[i].is_pad()) {
      next = sections_[i].offset;
      break;
    }
  // rpi-eeprom-config checks hdr + len + 20 against the next section, which
  // does not count the 4-byte magic: a file ending 1..4 bytes past it would
  // overwrite the next section's magic. Here the data end itself is checked.
  const std::size_t data_end = hdr + 4 + kFileHeaderLen + content.size();
  if (data_end > size - kEraseAlign)
    throw Error(ErrorKind::Usage, fmt::format("{}: {} ({} bytes) does not fit: it would reach the bootloader's "
                                              "scratch page at offset {}",
                                              name_, name, content.size(), size - kEraseAlign));
  if (data_end > next)
    throw Error(ErrorKind::Usage, fmt::format("{}: {} ({} bytes) does not fit: {} bytes are free before the next "
                                              "section at offset {}",
                                              name_, name, content.size(), next - hdr - 4 - kFileHeaderLen, next));
  std::string out = bytes_;
  put_be32(out, hdr + 4, static_cast<std::uint32_t>(content.size() + 16));
  out.replace(hdr + 4 + kFileHeaderLen, content.size(), content);
  std::size_t pad_start = hdr + 4 + kFileHeaderLen + content.size();
  while (pad_start % 8 != 0) out[pad_start++] = '\xff';
  if (pad_start > next)  // only when `next` is not 8-aligned, which the section walk never yields
    throw Error(ErrorKind::Usage, fmt::format("{}: {} does not fit before offset {}", name_, name, next));
  std::size_t pad_bytes = next - pad_start;
  if (pad_bytes > 8 && !is_last) {
    pad_bytes -= 8;
    put_be32(out, pad_start, kPadMagic);
    put_be32(out, pad_start + 4, static_cast<std::uint32_t>(pad_bytes));
    pad_start += 8;
  }
  out.replace(pad_start, pad_bytes, pad_bytes, '\xff');
  return out;
}

std::optional<std::int64_t> EepromImage::build_timestamp() const {
  static constexpr std::string_view kKey = "BUILD_TIMESTAMP=";
  std::size_t pos = bytes_.find(kKey);
  while (pos != std::string::npos) {
    std::size_t p = pos + kKey.size();
    std::int64_t v = 0;
    std::size_t digits = 0;
    while (p < bytes_.size() && std::isdigit(static_cast<unsigned char>(bytes_[p])) && digits < 12) {
      v = v * 10 + (bytes_[p++] - '0');
      ++digits;
    }
    if (digits > 0) return v;
    pos = bytes_.find(kKey, pos + 1);
  }
  return std::nullopt;
}

std::string EepromImage::version() const {
  static constexpr std::string_view kKey = "VERSION:";
  std::size_t pos = bytes_.find(kKey);
  if (pos == std::string::npos || pos + kKey.size() + 8 > bytes_.size()) return "";
  std::string shorthash = bytes_.substr(pos + kKey.size(), 8);
  for (char c : shorthash)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return "";
  for (std::size_t p = bytes_.find(shorthash); p != std::string::npos; p = bytes_.find(shorthash, p + 1)) {
    if (p + 40 > bytes_.size()) break;
    bool full = true;
    for (std::size_t i = 8; i < 40 && full; ++i) full = std::isxdigit(static_cast<unsigned char>(bytes_[p + i])) != 0;
    if (full) return bytes_.substr(p, 40);
  }
  return shorthash;
}

}  // namespace piprov::eeprom
