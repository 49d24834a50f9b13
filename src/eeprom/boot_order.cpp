#include "eeprom/boot_order.hpp"

#include "core/strings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

#include "core/enum_names.hpp"

namespace piprov::eeprom {
namespace {
constexpr const char* kBootOrderSource = "Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER";
constexpr int kStop = 0xe, kRestart = 0xf, kRpiboot = 3;

bool is_end(int n) { return n == kStop || n == kRestart; }

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

namespace {
constexpr EnumName<Want> kWantNames[] = {
    {Want::Usb, "usb"}, {Want::Nvme, "nvme"}, {Want::Sd, "sd"}, {Want::Network, "network"}};
}  // namespace

std::optional<Want> parse_want(std::string_view s) { return parse_enum(kWantNames, s); }
std::string_view want_name(Want w) { return enum_name(kWantNames, w); }

int want_mode(Want w) {
  switch (w) {
    case Want::Usb: return 4;
    case Want::Nvme: return 6;
    case Want::Sd: return 1;
    case Want::Network: return 2;
  }
  return 4;
}

bool want_satisfied_by(Want w, int nibble) {
  if (w == Want::Network && nibble == 7) return true;  // HTTP boot is network boot too
  return nibble == want_mode(w);
}

BootOrder boot_order_from_value(std::uint32_t value) {
  BootOrder o;
  o.value = value;
  for (std::uint32_t v = value; v != 0; v >>= 4) o.modes.push_back(static_cast<int>(v & 0xf));
  return o;
}

BootOrderParse parse_boot_order(std::string_view text) {
  BootOrderParse r;
  if (text.size() < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
    r.error = fmt::format("BOOT_ORDER \"{}\" is not hex with a 0x prefix (e.g. 0xf41)", text);
    return r;
  }
  auto digits = text.substr(2);
  if (digits.empty()) {
    r.error = "BOOT_ORDER \"0x\" has no hex digits";
    return r;
  }
  std::uint32_t v = 0;
  std::size_t significant = 0;
  for (char c : digits) {
    int h = hexval(c);
    if (h < 0) {
      r.error = fmt::format("BOOT_ORDER \"{}\" contains '{}', which is not a hex digit", text, c);
      return r;
    }
    if (significant > 0 || h != 0) ++significant;
    if (significant > 8) {
      r.error = fmt::format("BOOT_ORDER \"{}\" has more than 8 nibbles (the bootloader reads at most 8)", text);
      return r;
    }
    v = (v << 4) | static_cast<std::uint32_t>(h);
  }
  if (v == 0) {
    r.error = fmt::format("BOOT_ORDER \"{}\" is zero: no boot mode at all", text);
    return r;
  }
  r.order = boot_order_from_value(v);
  // The bootloader reads nibbles from the right; STOP or RESTART before any
  // boot mode (0xf, 0xfe, 0x1f) boots nothing, like 0x0.
  if (!r.order->modes.empty() && is_end(r.order->modes.front())) {
    r.error = fmt::format("BOOT_ORDER \"{}\" starts with {} (its last hex digit): no boot mode is ever tried", text,
                          r.order->modes.front() == kStop ? "STOP (e)" : "RESTART (f)");
    r.order.reset();
    return r;
  }
  return r;
}

std::string format_boot_order(std::uint32_t value) { return fmt::format("0x{:x}", value); }

bool mode_known(int n) { return (n >= 0 && n <= 7) || n == kStop || n == kRestart; }

std::string mode_name(int n) {
  switch (n) {
    case 0: return "SD card (card-detect, deprecated)";
    case 1: return "SD card";
    case 2: return "network";
    case 3: return "RPIBOOT (USB device boot)";
    case 4: return "USB mass storage";
    case 5: return "USB mass storage on the USB-C port (BCM-USB-MSD)";
    case 6: return "NVMe";
    case 7: return "HTTP";
    case kStop: return "stop";
    case kRestart: return "restart from the top";
    default: return fmt::format("unknown mode 0x{:x}", n);
  }
}

std::size_t reachable_count(const BootOrder& o) {
  for (std::size_t i = 0; i < o.modes.size(); ++i)
    if (is_end(o.modes[i])) return i + 1;
  return o.modes.size();
}

bool boot_order_tries_board_mode(const BootOrder& o, Board board) {
  const std::size_t reach = reachable_count(o);
  for (std::size_t i = 0; i < reach; ++i)
    if (!is_end(o.modes[i]) && mode_known(o.modes[i]) && board_has_mode(board, o.modes[i])) return true;
  return false;
}

std::string boot_order_words(const BootOrder& o, std::optional<Board> board) {
  std::string out;
  std::size_t reach = reachable_count(o);
  std::vector<std::string> skipped;
  for (std::size_t i = 0; i < reach; ++i)
    if (board && mode_known(o.modes[i]) && !is_end(o.modes[i]) && !board_has_mode(*board, o.modes[i]))
      skipped.push_back(mode_name(o.modes[i]));
  if (board && !skipped.empty() && !boot_order_tries_board_mode(o, *board)) {
    // Every mode it lists is one the board lacks: say so once, not "boots only from X (skipped)".
    out = fmt::format("no mode a {} has (it skips {})", board_title(*board), fmt::join(skipped, ", "));
    if (reach > 0 && is_end(o.modes[reach - 1])) out += ", then " + mode_name(o.modes[reach - 1]);
  } else
    for (std::size_t i = 0; i < reach; ++i) {
      int n = o.modes[i];
      std::string w = mode_name(n);
      if (board && mode_known(n) && !board_has_mode(*board, n))
        w += fmt::format(" (not on a {}: skipped)", board_title(*board));
      out += (i == 0 ? "" : ", then ") + w;
    }
  if (reach < o.modes.size()) {
    out += "; never reached: ";
    for (std::size_t i = reach; i < o.modes.size(); ++i) out += (i == reach ? "" : ", ") + mode_name(o.modes[i]);
  } else if (!o.modes.empty() && !is_end(o.modes.back()) && o.modes.back() != kRpiboot) {
    out += ", then stop (no RESTART)";
  }
  return out;
}

namespace {
// `o` with `first_mode` moved to the front, unreachable/unknown modes dropped, RESTART last.
std::uint32_t boot_order_with_mode_first(const BootOrder& o, int first_mode, Board board);
}  // namespace

std::uint32_t suggest_boot_order(const BootOrder& o, Want want, Board board) {
  return boot_order_with_mode_first(o, want_mode(want), board);
}

namespace {
std::uint32_t boot_order_with_mode_first(const BootOrder& o, int first_mode, Board board) {
  std::vector<int> modes{first_mode};
  std::size_t reach = reachable_count(o);
  for (std::size_t i = 0; i < reach; ++i) {
    int n = o.modes[i];
    if (is_end(n) || n == kRpiboot || !mode_known(n) || !board_has_mode(board, n)) continue;
    if (std::find(modes.begin(), modes.end(), n) != modes.end()) continue;
    modes.push_back(n);
  }
  if (modes.size() > 7) modes.resize(7);
  modes.push_back(kRestart);
  std::uint32_t v = 0;
  for (auto it = modes.rbegin(); it != modes.rend(); ++it) v = (v << 4) | static_cast<std::uint32_t>(*it);
  return v;
}
}  // namespace

std::string set_boot_order_command(std::string_view value, const std::string& image) {
  return fmt::format("piprov eeprom set-boot-order {} --image {} --out new.bin", value,
                     image.empty() ? std::string("pieeprom.bin") : shell_quote(image));
}

Findings check_boot_order(const BootOrder& o, int line, Board board, std::optional<Want> want,
                          const std::string& conditional, const std::string& section, const std::string& image) {
  Findings f;
  auto add = [&](std::string rule, Severity s, std::string msg, std::string fix) {
    f.push_back({std::move(rule), s, line, "BOOT_ORDER", std::move(msg), std::move(fix), kBootOrderSource});
  };
  const std::string where = conditional.empty() ? "" : fmt::format(" (under {})", conditional);
  const std::string value = format_boot_order(o.value);
  std::size_t reach = reachable_count(o);

  for (std::size_t i = 0; i < o.modes.size(); ++i) {
    int n = o.modes[i];
    if (!mode_known(n))
      add("boot-order-unknown-mode", Severity::Error,
          fmt::format("BOOT_ORDER={}{}: nibble {} is 0x{:x}, which is not a boot mode", value, where, i + 1, n),
          "use only 0-7, e (stop) and f (restart) in BOOT_ORDER");
    else if (i < reach && !board_has_mode(board, n))
      add("boot-order-mode-unsupported", Severity::Warning,
          fmt::format("BOOT_ORDER={}{}: mode {:x} ({}) does not exist on a {}; the bootloader skips it", value, where,
                      n, mode_name(n), board_title(board)),
          fmt::format("remove nibble {:x} or check --board (mode 5 is Pi 4 only, mode 6 needs a CM4 or Pi 5)", n));
    if (n == kRpiboot && i + 1 < reach)
      add("boot-order-rpiboot-not-last", Severity::Error,
          fmt::format("BOOT_ORDER={}{}: RPIBOOT (3) must be the last mode; the modes after it are not tried", value,
                      where),
          "move 3 to the most significant position or drop it");
  }
  if (reach < o.modes.size()) {
    add("boot-order-unreachable", Severity::Warning,
        fmt::format("BOOT_ORDER={}{}: {} nibble(s) after {} are never reached", value, where, o.modes.size() - reach,
                    o.modes[reach - 1] == kStop ? "STOP (e)" : "RESTART (f)"),
        fmt::format("drop them or move them before the {:x}", o.modes[reach - 1]));
  } else if (!o.modes.empty() && !is_end(o.modes.back()) && o.modes.back() != kRpiboot) {
    add("boot-order-no-restart", Severity::Warning,
        fmt::format("BOOT_ORDER={}{} has no RESTART (f): after the last mode fails the Pi stops trying until "
                    "power-cycled",
                    value, where),
        o.modes.size() < 8
            ? fmt::format("append f: BOOT_ORDER={}", format_boot_order(0xfu << (4 * o.modes.size()) | o.value))
            : std::string("make the most significant nibble f (restart)"));
  }
  if (!want) return f;

  const int wm = want_mode(*want);
  auto first = std::find_if(o.modes.begin(), o.modes.begin() + static_cast<long>(reach),
                            [&](int n) { return want_satisfied_by(*want, n) && board_has_mode(board, n); });
  if (first == o.modes.begin() + static_cast<long>(reach) || !board_has_mode(board, wm)) {
    bool exists = board_has_mode(board, wm);
    std::string tried = *want == Want::Network ? fmt::format("{} ({}) nor {} (7)", mode_name(wm), wm, mode_name(7))
                                               : fmt::format("{} ({})", mode_name(wm), wm);
    std::string msg =
        !exists
            ? fmt::format("--want {}: a {} has no {} boot mode", want_name(*want), board_title(board), mode_name(wm))
            : fmt::format("BOOT_ORDER={}{} never tries {}: {}", value, where, tried, boot_order_words(o, board));
    if (exists && *want == Want::Usb) msg += " — USB boot is never tried";
    const std::uint32_t suggested = suggest_boot_order(o, *want, board);
    const std::string& under = section.empty() ? conditional : section;
    std::string fix =
        !exists ? std::string("boot from a mode this board has, or check --board")
        : under.empty()
            ? fmt::format("set BOOT_ORDER={} ({}) under [all]: {}, or sudo rpi-eeprom-config --edit",
                          format_boot_order(suggested), boot_order_words(boot_order_from_value(suggested)),
                          set_boot_order_command(format_boot_order(suggested), image))
            : fmt::format(
                  "set BOOT_ORDER={} ({}) at line {}, under {}: sudo rpi-eeprom-config --edit (piprov eeprom "
                  "set-boot-order changes only the [all] value)",
                  format_boot_order(suggested), boot_order_words(boot_order_from_value(suggested)), line, under);
    add("boot-order-missing-mode", conditional.empty() ? Severity::Error : Severity::Warning, msg, fix);
  } else if (first != o.modes.begin()) {
    std::string before;
    // Only the modes the board tries: one it lacks is skipped (boot-order-mode-unsupported).
    for (auto it = o.modes.begin(); it != first; ++it)
      if (mode_known(*it) && board_has_mode(board, *it)) before += (before.empty() ? "" : ", ") + mode_name(*it);
    if (!before.empty())
      add("boot-order-wanted-not-first", Severity::Info,
          fmt::format("BOOT_ORDER={}{} tries {} before {}: if that succeeds the Pi boots from it instead", value, where,
                      before, mode_name(*first)),
          fmt::format("to try {} first: BOOT_ORDER={}", mode_name(*first),
                      format_boot_order(boot_order_with_mode_first(o, *first, board))));
  }
  return f;
}

}  // namespace piprov::eeprom
