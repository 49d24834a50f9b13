#include "boot/firmware.hpp"

#include <cstring>
#include <string_view>

#include "core/file.hpp"

namespace piprov::boot {
namespace {

// Finds the first compiler __DATE__-style string "Mmm dd yyyy" (day space-padded)
// followed by a __TIME__ "hh:mm:ss", as the firmware's version banner has, and
// returns it as "yyyy-mm-dd".
std::string find_build_date(std::string_view data) {
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 0; i + 20 <= data.size(); ++i) {
    for (int m = 0; m < 12; ++m) {
      if (std::memcmp(&data[i], months[m], 3) != 0) continue;
      const char* p = &data[i];
      // "Sep  3 2020 12:11:43" or "Sep 13 2020 12:11:43"
      bool ok = p[3] == ' ' && (p[4] == ' ' || digit(p[4])) && digit(p[5]) && p[6] == ' ' && digit(p[7]) &&
                digit(p[8]) && digit(p[9]) && digit(p[10]) && p[11] == ' ' && digit(p[12]) && digit(p[13]) &&
                p[14] == ':' && digit(p[15]) && digit(p[16]) && p[17] == ':' && digit(p[18]) && digit(p[19]);
      if (!ok) continue;
      int day = (p[4] == ' ' ? 0 : p[4] - '0') * 10 + (p[5] - '0');
      char buf[16];
      std::snprintf(buf, sizeof buf, "%.4s-%02d-%02d", p + 7, m + 1, day);
      return buf;
    }
  }
  return "";
}

}  // namespace

FirmwareInfo firmware_info(const std::filesystem::path& boot_dir) {
  FirmwareInfo fi;
  const auto data = read_file_if_exists(boot_dir / "start4.elf");
  if (!data) {
    fi.summary = "no start4.elf in the boot directory: the Pi 4 firmware version is unknown (firmware built since " +
                 std::string(kGzipKernelFirmwareDate) + " boots a gzip kernel= directly)";
    return fi;
  }
  fi.start4_present = true;
  fi.build_date = find_build_date(*data);
  if (fi.build_date.empty()) {
    fi.summary = "start4.elf carries no readable build date: whether it decompresses gzip kernels is unknown";
    return fi;
  }
  fi.decompresses_gzip = fi.build_date >= kGzipKernelFirmwareDate;
  fi.summary =
      "start4.elf was built on " + fi.build_date +
      (*fi.decompresses_gzip ? ": it decompresses gzip arm64 kernels itself, so kernel=vmlinuz would also boot"
                             : ": too old to decompress gzip kernels, kernel= must name an uncompressed Image");
  return fi;
}

}  // namespace piprov::boot
