// boot.scr's mkimage legacy header, as U-Boot's source command checks it (uboot_script.hpp).
#include <zlib.h>

#include <cstdint>
#include <string>

#include "boot/uboot_script.hpp"

namespace piprov::boot {
namespace {

constexpr std::uint32_t kUbootImageMagic = 0x27051956;  // IH_MAGIC
constexpr std::uint32_t kUbootFitMagic = 0xd00dfeed;    // FDT_MAGIC: a FIT image is a flattened device tree
constexpr std::size_t kUbootHeaderSize = 64;            // sizeof(struct legacy_img_hdr)
constexpr unsigned char kUbootTypeScript = 6;           // IH_TYPE_SCRIPT
constexpr unsigned char kUbootCompNone = 0;             // IH_COMP_NONE
// Byte offsets in the header: ih_magic 0, ih_hcrc 4, ih_time 8, ih_size 12, ih_load 16, ih_ep 20,
// ih_dcrc 24, ih_os 28, ih_arch 29, ih_type 30, ih_comp 31, ih_name 32..63.

std::uint32_t uboot_be32(std::string_view s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

std::uint32_t uboot_crc32(std::string_view s) {
  return static_cast<std::uint32_t>(
      ::crc32(::crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size())));
}

}  // namespace

UbootScriptText uboot_script_text(std::string_view file) {
  if (file.size() >= 4 && uboot_be32(file, 0) == kUbootFitMagic) return {true, false, true, {}, {}};
  if (file.size() < 4 || uboot_be32(file, 0) != kUbootImageMagic)
    return {false,
            true,
            false,
            {},
            "it is plain text, not an mkimage script (U-Boot: Wrong image format for \"source\" command)"};
  auto refused = [](std::string why) { return UbootScriptText{false, false, false, {}, std::move(why)}; };
  if (file.size() < kUbootHeaderSize)
    return refused("it ends inside its 64-byte mkimage header (" + std::to_string(file.size()) + " bytes)");
  std::string header(file.substr(0, kUbootHeaderSize));
  header.replace(4, 4, 4, '\0');  // ih_hcrc is computed with itself zeroed
  if (uboot_crc32(header) != uboot_be32(file, 4)) return refused("its header CRC-32 is wrong (U-Boot: Bad header crc)");
  const std::uint32_t size = uboot_be32(file, 12);
  if (size > file.size() - kUbootHeaderSize)
    return refused("its header says " + std::to_string(size) + " bytes of data, the file has " +
                   std::to_string(file.size() - kUbootHeaderSize) + " after the header: cut short");
  const std::string_view data = file.substr(kUbootHeaderSize, size);
  // U-Boot checks the data CRC unless the environment sets verify=no (the default checks).
  if (uboot_crc32(data) != uboot_be32(file, 24)) return refused("its data CRC-32 is wrong (U-Boot: Bad data crc)");
  if (static_cast<unsigned char>(file[30]) != kUbootTypeScript)
    return refused("its mkimage type is " + std::to_string(static_cast<unsigned char>(file[30])) +
                   ", not a script (6) (U-Boot: Bad image type)");
  if (static_cast<unsigned char>(file[31]) != kUbootCompNone)
    return refused("its script is compressed, which U-Boot's source command does not undo");
  // The length table: 32-bit big-endian lengths ending with 0; the script is the first component.
  std::size_t at = 0;
  std::uint32_t len = 0;
  for (;; at += 4) {
    if (at + 4 > data.size()) return refused("its length table has no terminating 0 inside the image");
    const std::uint32_t l = uboot_be32(data, at);
    if (at == 0) len = l;
    if (l == 0) break;
  }
  at += 4;
  if (len == 0) return refused("it is an empty script (U-Boot: Empty Script)");
  if (len > data.size() - at) return refused("its script length " + std::to_string(len) + " runs past its data");
  std::string_view text = data.substr(at, len);
  if (auto nul = text.find('\0'); nul != std::string_view::npos) text = text.substr(0, nul);
  return {true, false, false, text, {}};
}

}  // namespace piprov::boot
