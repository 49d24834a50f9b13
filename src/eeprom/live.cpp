#include "eeprom/live.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/process.hpp"
#include "core/strings.hpp"

namespace piprov::eeprom {
namespace {
// Runs `prog arg`, returns {exit status, stdout}; 127 when it cannot be found.
std::pair<int, std::string> run(const std::string& prog, const char* arg) {
  ProgramResult r = run_program({prog, arg}, {.env = {}, .capture_stdout = true, .input = {}});
  return {r.exit_code, r.out};
}
}  // namespace

BootloaderInfo parse_bootloader_version(std::string_view text) {
  BootloaderInfo bl;
  bl.source = "vcgencmd bootloader_version";
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.substr(0, 10) == "timestamp ") {
      std::int64_t v = 0;
      std::size_t digits = 0;
      for (char ch : line.substr(10)) {
        if (ch < '0' || ch > '9' || digits >= 12) break;
        v = v * 10 + (ch - '0');
        ++digits;
      }
      if (digits > 0 && v > 0) bl.build_timestamp = v;
    } else if (line.substr(0, 8) == "version ") {
      auto rest = line.substr(8);
      bl.version = std::string(rest.substr(0, rest.find(' ')));
    }
  }
  return bl;
}

LiveData read_live(const LiveOptions& opt) {
  LiveData d;
  const BoardId id = detect_board(opt.root);
  const std::string shown = id.compatible_text();
  if (!id.board)
    throw Error(
        ErrorKind::Usage,
        fmt::format("--live: this is not a Raspberry Pi 4 or 5 ({}); check a saved config instead: piprov "
                    "eeprom check FILE, or --image pieeprom.bin",
                    id.compatible ? "device tree compatible is \"" + shown + "\"" : "no /proc/device-tree/compatible"));
  d.board = *id.board;
  d.compatible = shown;

  auto [rc, cfg] = run(opt.vcgencmd, "bootloader_config");
  if (rc != 0)
    throw Error(ErrorKind::Io, fmt::format("--live: `{} bootloader_config` failed ({}); install the Raspberry Pi "
                                           "userland tools (vcgencmd) or check a saved config FILE",
                                           opt.vcgencmd, "exit " + std::to_string(rc)));
  d.config_text = cfg;

  auto [vrc, ver] = run(opt.vcgencmd, "bootloader_version");
  if (vrc == 0) d.bootloader = parse_bootloader_version(ver);
  if (!d.bootloader.build_timestamp) {
    auto ts = read_system_file(opt.root("/proc/device-tree/chosen/bootloader/build-timestamp"));
    if (ts && ts->size() >= 4) {
      auto u = [&](int i) { return static_cast<std::int64_t>(static_cast<unsigned char>((*ts)[i])); };
      d.bootloader.build_timestamp = u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
      d.bootloader.source = "device tree";
      auto v = read_system_file(opt.root("/proc/device-tree/chosen/bootloader/version"));
      if (v) d.bootloader.version = v->substr(0, v->find('\0'));
    }
  }
  d.release_channel_file = opt.root("/etc/default/rpi-eeprom-update").string();
  if (auto f = read_system_file(d.release_channel_file)) d.release_channel = parse_release_status(*f);
  return d;
}

}  // namespace piprov::eeprom
