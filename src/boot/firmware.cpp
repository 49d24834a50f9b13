#include "boot/firmware.hpp"

#include <cstring>
#include <string_view>

#include "boot/layout.hpp"
#include "core/file.hpp"

namespace piprov::boot {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// "hh:mm:ss" at p (8 bytes available).
bool is_time(const char* p) {
  return digit(p[0]) && digit(p[1]) && p[2] == ':' && digit(p[3]) && digit(p[4]) && p[5] == ':' && digit(p[6]) &&
         digit(p[7]);
}

// A compiler __DATE__ "Mmm dd yyyy" (day space-padded) at data[i]: "yyyy-mm-dd", or "".
std::string date_at(std::string_view data, std::size_t i) {
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (i + 11 > data.size()) return "";
  const char* p = &data[i];
  for (int m = 0; m < 12; ++m) {
    if (std::memcmp(p, months[m], 3) != 0) continue;
    bool ok = p[3] == ' ' && (p[4] == ' ' || digit(p[4])) && digit(p[5]) && p[6] == ' ' && p[7] == '2' && digit(p[8]) &&
              digit(p[9]) && digit(p[10]);
    if (!ok) return "";
    int day = (p[4] == ' ' ? 0 : p[4] - '0') * 10 + (p[5] - '0');
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.4s-%02d-%02d", p + 7, m + 1, day);
    return buf;
  }
  return "";
}

// The firmware's build date as "yyyy-mm-dd", from the first of:
//  - "VC_BUILD_ID_TIME: Aug 26 2022" (the build-id strings of raspberrypi/firmware
//    builds, e.g. Debian's raspi-firmware 1.20220830: the time is in another
//    VC_BUILD_ID_TIME string);
//  - a __DATE__ "Sep  3 2020" followed by its __TIME__, either in the same
//    string ("Sep  3 2020 12:11:43", the version banner) or in the next
//    NUL/newline-separated string ("Aug 26 2022\0...14:03:10").
std::string find_build_date(std::string_view data) {
  constexpr std::string_view tag = "VC_BUILD_ID_TIME: ";
  for (auto at = data.find(tag); at != std::string_view::npos; at = data.find(tag, at + 1))
    if (auto d = date_at(data, at + tag.size()); !d.empty()) return d;
  for (std::size_t i = 0; i + 20 <= data.size(); ++i) {
    std::string d = date_at(data, i);
    if (d.empty()) continue;
    std::size_t j = i + 11;
    if (data[j] == ' ' && is_time(&data[j + 1])) return d;
    std::size_t k = j;
    while (k < data.size() && k < j + 8 && (data[k] == '\0' || data[k] == '\n' || data[k] == '\r')) ++k;
    if (k > j && k + 8 <= data.size() && is_time(&data[k])) return d;
  }
  return "";
}

}  // namespace

FirmwareInfo firmware_info(const std::filesystem::path& boot_dir, const std::string& kernel) {
  FirmwareInfo fi;
  const auto data = read_partition_file(boot_dir, "start4.elf");
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
      (*fi.decompresses_gzip
           ? ": it decompresses gzip arm64 kernels itself" + (kernel.empty() ? "" : " (it loads kernel=" + kernel + ")")
           : ": too old to decompress gzip kernels, kernel=" + (kernel.empty() ? "" : kernel + " ") +
                 "must be an uncompressed Image");
  return fi;
}

}  // namespace piprov::boot
