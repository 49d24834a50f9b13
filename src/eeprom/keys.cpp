#include "eeprom/keys.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <vector>

#include "core/strings.hpp"

namespace piprov::eeprom {
namespace {
constexpr std::int64_t kMaxI = std::numeric_limits<std::int32_t>::max();
constexpr const char* kNotes = "Raspberry Pi documentation, eeprom-bootloader: configuration properties";
constexpr const char* kDocs = "Raspberry Pi documentation, eeprom-bootloader (value not checked)";

// clang-format off
constexpr std::array kRules{
  KeyRule{"BOOT_UART",                ValueType::Int,       0,     1,     "0",     kAllBoards, kNotes},
  KeyRule{"WAKE_ON_GPIO",             ValueType::Int,       0,     2,     "1",     kPi4Family, kNotes},
  KeyRule{"POWER_OFF_ON_HALT",        ValueType::Int,       0,     1,     "0",     kAllBoards, kNotes},
  KeyRule{"BOOT_ORDER",               ValueType::BootOrder, 0,     0,     "",      kAllBoards, kNotes},
  KeyRule{"DHCP_TIMEOUT",             ValueType::Int,       5000,  kMaxI, "45000", kAllBoards, kNotes},
  KeyRule{"DHCP_REQ_TIMEOUT",         ValueType::Int,       500,   kMaxI, "4000",  kAllBoards, kNotes},
  KeyRule{"TFTP_FILE_TIMEOUT",        ValueType::Int,       5000,  kMaxI, "30000", kAllBoards, kNotes},
  KeyRule{"TFTP_PREFIX",              ValueType::Int,       0,     2,     "0",     kAllBoards, kNotes},
  KeyRule{"TFTP_PREFIX_STR",          ValueType::String,    0,     32,    "",      kAllBoards, kNotes},
  KeyRule{"SD_BOOT_MAX_RETRIES",      ValueType::Int,       -1,    kMaxI, "0",     kAllBoards, kNotes},
  KeyRule{"NET_BOOT_MAX_RETRIES",     ValueType::Int,       -1,    kMaxI, "0",     kAllBoards, kNotes},
  KeyRule{"ENABLE_SELF_UPDATE",       ValueType::Int,       0,     1,     "1",     kAllBoards, kNotes},
  KeyRule{"DISABLE_HDMI",             ValueType::Int,       0,     1,     "0",     kAllBoards, kNotes},
  KeyRule{"FREEZE_VERSION",           ValueType::Int,       0,     1,     "0",     kAllBoards, kNotes},
  KeyRule{"USB_MSD_DISCOVER_TIMEOUT", ValueType::Int,       5000,  kMaxI, "20000", kAllBoards, kNotes},
  KeyRule{"USB_MSD_LUN_TIMEOUT",      ValueType::Int,       100,   kMaxI, "2000",  kAllBoards, kNotes},
  KeyRule{"USB_MSD_PWR_OFF_TIME",     ValueType::Int,       0,     5000,  "1000",  kPi4Family, kNotes},
  KeyRule{"USB_MSD_STARTUP_DELAY",    ValueType::Int,       0,     30000, "0",     kAllBoards, kNotes},
  KeyRule{"USB_MSD_EXCLUDE_VID_PID",  ValueType::VidPidList,0,     4,     "",      kAllBoards, kNotes},
  KeyRule{"PCIE_PROBE",               ValueType::Int,       0,     1,     "0",     kPi5,       kNotes},
  KeyRule{"PSU_MAX_CURRENT",          ValueType::Int,       0,     kMaxI, "",      kPi5,       kNotes},
  KeyRule{"NET_INSTALL_ENABLED",      ValueType::Int,       0,     1,     "1",     kAllBoards, kNotes},
  KeyRule{"NET_INSTALL_AT_POWER_ON",  ValueType::Int,       0,     1,     "0",     kAllBoards, kNotes},
  KeyRule{"PARTITION_WALK",           ValueType::Int,       0,     1,     "1",     kAllBoards, kNotes},
  KeyRule{"HDMI_DELAY",               ValueType::Int,       0,     kMaxI, "5",     kAllBoards, kNotes},
  KeyRule{"UART_BAUD",                ValueType::Choice,    0,     0,     "115200",kPi5,       kNotes,
          "9600,19200,38400,57600,115200,230400,460800,921600"},
  KeyRule{"WAIT_FOR_POWER_BUTTON",    ValueType::Int,       0,     1,     "0",     kPi5,       kNotes},
  KeyRule{"BOOT_WATCHDOG_TIMEOUT",    ValueType::Int,       0,     kMaxI, "0",     kAllBoards, kNotes},
  KeyRule{"BOOT_WATCHDOG_PARTITION",  ValueType::Int,       0,     kMaxI, "0",     kAllBoards, kNotes},
  KeyRule{"MAX_RESTARTS",             ValueType::Int,       -1,    kMaxI, "-1",    kAllBoards, kNotes},
  KeyRule{"REBOOT_ON_FATAL_ERROR",    ValueType::Int,       0,     1,     "1",     kAllBoards, kNotes},
  KeyRule{"SD_OVERCURRENT_CHECK",     ValueType::Int,       0,     1,     "1",     kAllBoards, kNotes},
  KeyRule{"SDRAM_BANKLOW",            ValueType::Int,       0,     4,     "",      kAllBoards, kNotes},
  KeyRule{"NETCONSOLE",               ValueType::String,    0,     32,    "",      kAllBoards, kNotes},
  // Present in the bootloader documentation and in real configs; not range-checked.
  KeyRule{"TFTP_IP",                  ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"CLIENT_IP",                ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"SUBNET",                   ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"GATEWAY",                  ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"MAC_ADDRESS",              ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"DHCP_OPTION97",            ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"SIGNED_BOOT",              ValueType::Any,       0,     0,     "0",     kAllBoards, kDocs},
  KeyRule{"PARTITION",                ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"USB_MSD_BOOT_MAX_RETRIES", ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"BOOT_LOAD_FLAGS",          ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"HTTP_HOST",                ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"HTTP_PORT",                ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"HTTP_PATH",                ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"IMAGER_REPO_URL",          ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"NET_INSTALL_KEYBOARD_WAIT",ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"XHCI_DEBUG",               ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"VL805",                    ValueType::Any,       0,     0,     "",      kPi4Family, kDocs},
  KeyRule{"SD_QUIRKS",                ValueType::Any,       0,     0,     "0",     kAllBoards, kDocs},
  KeyRule{"PXE_OPTION43",             ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"MAC_ADDRESS_OTP",          ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"HTTP_CACERT_HASH",         ValueType::Any,       0,     0,     "",      kAllBoards, kDocs},
  KeyRule{"BOOTVAR0",                 ValueType::Any,       0,     0,     "0",     kAllBoards, kDocs},
};
// clang-format on

std::string upper(std::string_view s) {
  std::string u(s);
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::toupper(c); });
  return u;
}

std::optional<std::int64_t> parse_int(std::string_view v) {
  std::int64_t out = 0;
  if (v.empty() || v.size() > 18) return std::nullopt;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  return out;
}

bool valid_vid_pid_list(std::string_view v, std::int64_t max_items) {
  std::int64_t items = 0;
  std::size_t pos = 0;
  while (true) {
    std::size_t comma = v.find(',', pos);
    std::string_view item = v.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (item.size() != 8) return false;
    for (char c : item)
      if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    if (++items > max_items) return false;
    if (comma == std::string_view::npos) return true;
    pos = comma + 1;
  }
}

// Whether `v` is one of the comma-separated `choices`.
bool is_choice(std::string_view v, std::string_view choices) {
  for (std::size_t pos = 0; pos <= choices.size();) {
    std::size_t comma = std::min(choices.find(',', pos), choices.size());
    if (!v.empty() && choices.substr(pos, comma - pos) == v) return true;
    pos = comma + 1;
  }
  return false;
}

std::string shown(std::string_view v) {
  std::string out;
  for (char c : v.substr(0, 60)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return out;
}
}  // namespace

std::span<const KeyRule> key_rules() { return kRules; }

const KeyRule* find_key(std::string_view key) {
  for (const auto& r : kRules)
    if (r.key == key) return &r;
  return nullptr;
}

const KeyRule* find_key_any_case(std::string_view key) { return find_key(upper(key)); }

std::optional<std::string_view> nearest_key(std::string_view key) {
  if (key.size() > 64) return std::nullopt;
  std::string u = upper(key);
  std::optional<std::string_view> best;
  std::size_t best_d = std::string::npos;
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  for (const auto& r : kRules) {
    // The distance is at least the length difference: skip hopeless names.
    std::size_t diff = u.size() > r.key.size() ? u.size() - r.key.size() : r.key.size() - u.size();
    if (diff > limit || diff >= best_d) continue;
    std::size_t d = edit_distance(u, r.key, std::min(limit, best_d));
    if (d < best_d) best_d = d, best = r.key;
  }
  if (best && best_d <= limit) return best;
  return std::nullopt;
}

bool key_on_board(const KeyRule& r, Board board) { return (r.boards & (is_bcm2712(board) ? kPi5 : kPi4Family)) != 0; }

Findings check_setting(std::string_view key, std::string_view value, int line, Board board) {
  Findings f;
  const KeyRule* r = find_key(key);
  if (!r) {
    auto near = nearest_key(key);
    std::string msg = fmt::format("unknown key {}: the bootloader ignores it", shown(key));
    std::string fix = near ? fmt::format("did you mean {}?", *near)
                           : "remove it, or check the spelling against the "
                             "bootloader documentation";
    if (near) msg += fmt::format(" (did you mean {}?)", *near);
    f.push_back({"unknown-key", Severity::Warning, line, std::string(key), msg, fix, kNotes});
    return f;
  }
  const std::string src(r->source);
  if (!key_on_board(*r, board)) {
    f.push_back({"key-wrong-board", Severity::Warning, line, std::string(key),
                 fmt::format("{} is a {} setting; a {} ignores it", key, r->boards == kPi5 ? "Pi 5-only" : "Pi 4-only",
                             board_title(board)),
                 "remove it, or pass the right --board", src});
    return f;
  }
  switch (r->type) {
    case ValueType::Int: {
      auto n = parse_int(value);
      if (!n) {
        f.push_back({"value-invalid", Severity::Error, line, std::string(key),
                     fmt::format("{}={} is not a decimal integer", key, shown(value)),
                     fmt::format("write a number, e.g. {}={}", key, r->default_value.empty() ? "0" : r->default_value),
                     src});
        break;
      }
      std::int64_t max = r->max;
      if (key == "WAKE_ON_GPIO" && board != Board::Pi400) max = 1;  // 2 is Pi 400 only
      if (*n < r->min || *n > max) {
        std::string range = max == kMaxI ? fmt::format("at least {}", r->min) : fmt::format("{}..{}", r->min, max);
        f.push_back({"value-out-of-range", Severity::Error, line, std::string(key),
                     fmt::format("{}={} is out of range: {} must be {}{}", key, *n, key, range,
                                 key == "WAKE_ON_GPIO" && *n == 2 ? " (2 is for the Pi 400 only)" : ""),
                     fmt::format("use a value in {} (default {})", range,
                                 r->default_value.empty() ? "board dependent" : r->default_value),
                     src});
      }
      break;
    }
    case ValueType::String:
      if (r->max > 0 && static_cast<std::int64_t>(value.size()) > r->max)
        f.push_back({"value-out-of-range", Severity::Error, line, std::string(key),
                     fmt::format("{} is {} characters long; the limit is {}", key, value.size(), r->max),
                     fmt::format("shorten it to at most {} characters", r->max), src});
      break;
    case ValueType::VidPidList:
      if (!valid_vid_pid_list(value, r->max))
        f.push_back({"value-invalid", Severity::Error, line, std::string(key),
                     fmt::format("{}={} is not a list of up to {} comma-separated 8-hex-digit VID:PID items", key,
                                 shown(value), r->max),
                     fmt::format("e.g. {}=0bc22322,0bc22323", key), src});
      break;
    case ValueType::Choice:
      if (!is_choice(value, r->choices))
        f.push_back({"value-invalid", Severity::Error, line, std::string(key),
                     fmt::format("{}={} is not one of {}", key, shown(value), r->choices),
                     fmt::format("use one of {} (default {})", r->choices, r->default_value), src});
      break;
    case ValueType::BootOrder:
    case ValueType::Any: break;
  }
  return f;
}

}  // namespace piprov::eeprom
