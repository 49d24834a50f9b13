#pragma once
// Internal to boot check (check.cpp, check_layout.cpp): the state the checks share.
#include <string>

#include "boot/check.hpp"
#include "boot/cmdline_txt.hpp"

namespace piprov::boot::detail {

struct Ctx {
  const CheckOptions& o;
  CheckReport& r;
  std::string boot_q;     ///< BOOT_DIR shell-quoted, for fix commands
  std::string patch_cmd;  ///< "piprov boot patch BOOT_DIR"
  std::string board;      ///< "Pi 4", "Pi 400", "CM4", "Pi 5", "Pi 500", "CM5": in messages
  /// Adds a finding; the caller may set its line and key on the reference.
  Finding& add(Severity s, std::string rule, std::string msg, std::string fix = "", std::string source = "") {
    return r.findings.emplace_back(
        Finding{std::move(rule), s, 0, "", std::move(msg), std::move(fix), std::move(source)});
  }
  /// The finding is about config line `line` (1-based, in the file the message names) and `key`.
  static void locate(Finding& f, std::size_t line, std::string key) {
    f.line = static_cast<int>(line);
    f.key = std::move(key);
  }
  LayoutId layout() const { return r.layout.id; }
};

/// The kernel the firmware loads: present, not U-Boot, an arm64 Image or a
/// compressed one the firmware loads, vmlinux fresh (check_kernel.cpp).
void check_kernel(Ctx& c);
/// The initramfs line and its file.
void check_initramfs(Ctx& c);
/// root= of the cmdline file: a stable name (LABEL/PARTUUID/UUID), not pi-gen's
/// ROOTDEV placeholder; with --device, on that disk and unique among attached disks.
void check_root(Ctx& c, const std::optional<CmdlineTxt>& cmdline);
/// The tryboot A/B state: autoboot.txt tryboot_a_b=1, new/ pending or left over.
void check_ab(Ctx& c);
/// The command that reinstalls the kernel package of the layout (fix text).
std::string reinstall_kernel_fix(const Ctx& c);

}  // namespace piprov::boot::detail
