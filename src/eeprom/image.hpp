#pragma once
// pieeprom.bin: the Raspberry Pi 4 (BCM2711, 524288 B) / Pi 5 (BCM2712,
// 2097152 B) bootloader EEPROM image. Reads the embedded bootconf.txt and
// writes a new image with another one, in the layout raspberrypi/rpi-eeprom's
// `rpi-eeprom-config` uses (which `rpi-eeprom-update -f` flashes).
// Format (raspberrypi/rpi-eeprom rpi-eeprom-config): sections of big-endian
// u32 magic + u32 length; magic valid when (magic & 0xfffff00f) == 0x55aaf00f;
// 0x55aaf11f = file (12-byte NUL-padded name at +8, 4 zero bytes, data at +24,
// data length = length - 16), 0x55aafeef = padding; next section at
// (offset + 8 + length + 7) & ~7; magic 0 or 0xffffffff ends the list.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace piprov::eeprom {

inline constexpr std::uint32_t kMagic = 0x55aaf00f;
inline constexpr std::uint32_t kMagicMask = 0xfffff00f;
inline constexpr std::uint32_t kFileMagic = 0x55aaf11f;
inline constexpr std::uint32_t kPadMagic = 0x55aafeef;
inline constexpr std::size_t kFileHeaderLen = 20;  ///< magic is not counted: length + name + 4 zero bytes
inline constexpr std::size_t kEraseAlign = 4096;   ///< last 4 KiB are the bootloader's scratch page
inline constexpr std::size_t kMaxFileSize = kEraseAlign - kFileHeaderLen;  ///< 4076 B (rpi-eeprom-config MAX_FILE_SIZE)
inline constexpr std::size_t kPi4ImageSize = 512 * 1024;
inline constexpr std::size_t kPi5ImageSize = 2 * 1024 * 1024;

struct ImageSection {
  std::uint32_t magic = 0;
  std::size_t offset = 0;    ///< of the magic, bytes from the image start
  std::uint32_t length = 0;  ///< the header's length field
  std::string filename;      ///< file sections only, NULs removed
  bool is_file() const { return magic == kFileMagic; }
  bool is_pad() const { return magic == kPadMagic; }
};

/// A parsed image (the bytes plus the section table).
class EepromImage {
 public:
  /// Parses `bytes`; `name` is used in messages. Throws Error{Usage} for a size
  /// other than 512 KiB / 2 MiB ("truncated or not a pieeprom.bin") and for a
  /// corrupt section table (offset named). Never reads out of bounds.
  static EepromImage parse(std::string bytes, std::string name);
  /// Reads and parses a file. Throws Error{Io} when it cannot be read.
  static EepromImage load(const std::filesystem::path& path);

  const std::string& bytes() const { return bytes_; }
  const std::string& name() const { return name_; }
  const std::vector<ImageSection>& sections() const { return sections_; }
  /// 2711 (Pi 4 family, 512 KiB) or 2712 (Pi 5, 2 MiB), from the size.
  int chip() const { return bytes_.size() == kPi5ImageSize ? 2712 : 2711; }

  /// Index of the file section `name`, if any.
  std::optional<std::size_t> find_file(std::string_view name) const;
  /// Content of file `name`. Throws Error{Usage} when absent.
  std::string file(std::string_view name) const;
  /// The embedded config, exactly as `rpi-eeprom-config pieeprom.bin` prints it.
  std::string bootconf() const { return file("bootconf.txt"); }

  /// A new image whose file `name` holds `content`, as rpi-eeprom-config's
  /// update(): new length, data, 0xff up to 8-byte alignment, then a padding
  /// section (or 0xff when the file is the last section) up to the next
  /// non-padding section or the scratch page. Every other section keeps its
  /// bytes. Throws Error{Usage} when content > 4076 B or does not fit.
  std::string with_file(std::string_view name, std::string_view content) const;

  /// BUILD_TIMESTAMP=<unix seconds> embedded in the image (what
  /// `strings pieeprom.bin | grep BUILD_TIMESTAMP` shows in rpi-eeprom-update).
  std::optional<std::int64_t> build_timestamp() const;
  /// The git hash after "VERSION:" (40 hex digits when the full hash is present, else 8).
  std::string version() const;

 private:
  std::string bytes_;
  std::string name_;
  std::vector<ImageSection> sections_;
};

}  // namespace piprov::eeprom
