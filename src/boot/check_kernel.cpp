// boot check: the kernel and initramfs the firmware loads (check_ctx.hpp).
#include <fmt/format.h>

#include "boot/check_ctx.hpp"
#include "boot/firmware.hpp"
#include "boot/kernel_image.hpp"
#include "boot/patch.hpp"
#include "core/error.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::boot::detail {
namespace {

constexpr const char* kKernelDoc = "Raspberry Pi documentation, config_txt: boot options (kernel)";
constexpr const char* kInitramfsDoc = "Raspberry Pi documentation, config_txt: boot options (initramfs)";

/// What `boot patch` would do here, for fix texts.
std::string patch_fix(const Ctx& c) {
  auto m = choose_method(c.o.boot_dir, std::nullopt);
  return c.patch_cmd + (m.method == PatchMethod::Direct ? " (sets [pi4] kernel=vmlinuz: " + m.why + ")"
                                                        : " (sets [pi4] kernel=vmlinux)");
}

/// Layouts where `boot patch` is the fix for the kernel.
bool patch_fixes_kernel(LayoutId id) {
  return id == LayoutId::UbuntuUboot || id == LayoutId::Piprov || id == LayoutId::LegacyVmlinux;
}

std::string kernel_missing_fix(const Ctx& c) {
  if (auto no_pi5 = pi5_unsupported_fix(c); !no_pi5.empty()) return no_pi5 + "; boot patch does not change that";
  if (patch_fixes_kernel(c.layout())) return patch_fix(c);
  if (c.layout() == LayoutId::Unknown)
    return "put the kernel at " + partition_file(c.o.boot_dir, c.r.resolved.kernel).value_or(c.o.boot_dir).string() +
           " or name yours with kernel= in config.txt";
  return reinstall_kernel_fix(c, c.r.resolved.kernel);
}

/// Why a default kernel name is used, for the kernel-missing message.
std::string default_kernel_note(const Ctx& c) {
  const auto& rb = c.r.resolved;
  if (!rb.kernel_default) return "";
  if (is_bcm2712(rb.board))
    return " (no kernel= for the " + c.board + ": the firmware loads kernel_2712.img, else kernel8.img)";
  return std::string(" (no kernel= for [pi4]: the firmware loads ") + (rb.arm_64bit ? "kernel8.img" : "kernel7l.img") +
         ")";
}

/// The firmware's gzip support on this board: Pi 5 family always; Pi 4 family by start4.elf's date.
bool firmware_loads_gzip(const Ctx& c, std::string& said) {
  if (is_bcm2712(c.r.resolved.board)) {
    said = "the " + c.board + " firmware (in the EEPROM) decompresses gzip kernels itself";
    return true;
  }
  auto fw = firmware_info(c.o.boot_dir);
  said = fw.summary;
  return fw.decompresses_gzip.value_or(false);
}

std::string compressed_fix(const Ctx& c) {
  if (c.layout() == LayoutId::Unknown)
    return "update the firmware on the boot partition (a current start4.elf and fixup4.dat, raspberrypi/firmware), or "
           "boot an uncompressed arm64 Image";
  if (patch_fixes_kernel(c.layout())) return c.patch_cmd + " --method vmlinux (boots the uncompressed vmlinux instead)";
  if (c.layout() == LayoutId::Raspios || c.layout() == LayoutId::DebianRaspi)
    return "update the firmware on the boot partition: apt install --reinstall raspi-firmware (a current start4.elf "
           "and fixup4.dat)";
  return "update the firmware on the boot partition: apt install --reinstall linux-firmware-raspi (copies a current "
         "start4.elf and fixup4.dat)";
}

/// What every kernel rule reads: the boot dir, the kernel file the firmware
/// loads (relative to it) and where its kernel= line is (" (config.txt line 3)", or "").
struct KernelFile {
  const fs::path& boot;
  const std::string& name;
  std::string where;
  /// The file on the partition; BOOT itself (no regular file) when NAME leaves it (partition_file).
  fs::path path() const { return partition_file(boot, name).value_or(boot); }
};

constexpr const char* kOsPrefixDoc = "Raspberry Pi documentation, config_txt: boot options (os_prefix)";

/// os-prefix-ignored (warning): os_prefix is set, but its kernel or .dtb is missing, so the firmware
/// drops it and boots the top-level files (ResolvedBoot::prefix_ignored). Raspberry Pi
/// documentation, config_txt: os_prefix.
void check_os_prefix_ignored(Ctx& c) {
  const auto& rb = c.r.resolved;
  if (!rb.prefix_ignored || !rb.os_prefix_line) return;
  const auto& p = *rb.os_prefix_line;
  Ctx::locate(c.add(Severity::Warning, "os-prefix-ignored",
                    "os_prefix=" + p.value + " (" + p.file + " line " + std::to_string(p.line) +
                        ") has no effect: " + rb.prefix_missing + " does not exist in " + c.o.boot_dir.string() +
                        ", and the firmware uses the prefix only when the kernel and the .dtb are both there; it "
                        "boots the top-level " +
                        rb.kernel + ", .dtb, " + rb.cmdline + " and overlays/ instead",
                    "put " + rb.prefix_missing + " on the boot partition to boot from " + p.value +
                        ", or remove the os_prefix line to boot the top-level files as now",
                    kOsPrefixDoc),
              p.line, "os_prefix");
}

/// A rule of the kernel check: adds its findings; true when the checks after
/// it say nothing more (the kernel is missing, U-Boot, compressed, not an Image).
using KernelRule = bool (*)(Ctx&, const KernelFile&);

/// kernel-missing: the file the firmware loads is not there.
bool kernel_rule_missing(Ctx& c, const KernelFile& k) {
  std::error_code ec;
  if (fs::is_regular_file(k.path(), ec)) return false;
  // kernel=/NAME: a leading / names the partition's top level, where os_prefix is not applied
  // (Raspberry Pi documentation, config_txt: os_prefix), so there is no fallback to speak of.
  const auto& line = c.r.resolved.kernel_line;
  const std::string prefix_note = os_prefix_note(c.r.resolved.os_prefix, line ? "kernel=" + line->value : "",
                                                 line ? line->value : "", prefix_fallback_note(c));
  // kernel=kernel8.img # my kernel: one finding, naming the file the firmware looks for, and no fix
  // that creates a file with the comment in its name.
  std::string fix;
  const std::string comment =
      line ? comment_in_name_note(c, *line, "kernel", c.r.resolved.os_prefix, fix,
                                  [&](const std::string& rel) {
                                    return c.layout() == LayoutId::Unknown || patch_fixes_kernel(c.layout())
                                               ? "put the kernel there"
                                               : reinstall_kernel_fix(c, rel);
                                  })
           : "";
  c.add(Severity::Error, "kernel-missing",
        "the " + c.board + " kernel " + k.name + k.where + " does not exist in " + k.boot.string() +
            default_kernel_note(c) + prefix_note + comment,
        comment.empty() ? kernel_missing_fix(c) : fix, kKernelDoc);
  return true;
}

/// kernel-fallback: a Pi 5 without kernel_2712.img boots the generic kernel8.img.
bool kernel_rule_fallback(Ctx& c, const KernelFile& k) {
  const auto& rb = c.r.resolved;
  // k.name as spelled on the partition (KERNEL8.IMG: the firmware reads FAT without regard to case).
  if (!is_bcm2712(rb.board) || !rb.kernel_default || to_lower(fs::path(k.name).filename().string()) != "kernel8.img")
    return false;
  c.add(Severity::Warning, "kernel-fallback",
        "no kernel_2712.img in " + k.boot.string() + ": the " + c.board +
            " firmware falls back to kernel8.img, the generic arm64 kernel without the BCM2712 optimisations "
            "(16K pages)",
        c.layout() == LayoutId::Raspios
            ? "apt install --reinstall linux-image-rpi-2712 (Raspberry Pi OS's kernel package for the " + c.board +
                  " writes kernel_2712.img)"
            : reinstall_kernel_fix(c, rb.os_prefix + "kernel_2712.img"),  // the missing file, not kernel8.img
        kKernelDoc);
  return false;  // a warning: the kernel8.img is checked on
}

/// kernel-uboot: Ubuntu 20.04's U-Boot, which cannot boot from USB mass storage; kernel-uboot-chain
/// (info): any other U-Boot, recognised by its content (is_uboot), whose boot script loads Linux.
bool kernel_rule_uboot(Ctx& c, const KernelFile& k) {
  const bool named = fs::path(k.name).filename().string().rfind("uboot", 0) == 0;
  if (!named && !file_is_uboot(k.path())) return false;
  c.uboot = true;
  if (c.layout() != LayoutId::UbuntuUboot) {
    c.add(Severity::Info, "kernel-uboot-chain",
          "the " + c.board + " boots U-Boot, kernel=" + k.name + k.where +
              " (U-Boot by its content): U-Boot's boot script loads the Linux kernel; the kernel "
              "behind it is not checked");
    return true;
  }
  // boot patch refuses a cmdline without root= (Ubuntu's boot.scr adds none): say so first.
  auto cmdline = read_partition_file(c.o.boot_dir, c.r.resolved.cmdline);
  const bool no_root = cmdline && !CmdlineTxt::parse(*cmdline).get("root");
  c.add(Severity::Error, "kernel-uboot",
        "the " + c.board + " boots U-Boot, kernel=" + k.name + k.where + ", which cannot boot from USB mass storage",
        (no_root ? "add root=" + root_example(c) + " to " + c.r.resolved.cmdline + " (cmdline-no-root), then " : "") +
            patch_fix(c),
        kKernelDoc);
  return true;
}

/// kernel-gzip (the firmware decompresses it) or kernel-compressed (it may not, or cannot).
bool kernel_rule_compressed(Ctx& c, const KernelFile& k) {
  auto comp = detect_compression_file(k.path());
  if (comp == KernelCompression::None) return false;
  std::string fw;
  bool loads = firmware_loads_gzip(c, fw);
  if (comp == KernelCompression::Gzip && loads)
    c.add(Severity::Info, "kernel-gzip",
          "kernel " + k.name + k.where + " is gzip-compressed, which the " + c.board + " firmware decompresses itself");
  else if (comp == KernelCompression::Gzip)
    c.add(Severity::Warning, "kernel-compressed",
          "kernel " + k.name + k.where + " is gzip-compressed: only firmware built since " + kGzipKernelFirmwareDate +
              " boots gzip kernels itself, and " + fw,
          compressed_fix(c), kKernelDoc);
  else
    c.add(Severity::Warning, "kernel-compressed",
          "kernel " + k.name + k.where + " is " + to_string(comp) +
              "-compressed: the firmware decompresses gzip kernels only",
          patch_fixes_kernel(c.layout()) ? c.patch_cmd + " --method vmlinux (boots the uncompressed vmlinux instead)"
                                         : reinstall_kernel_fix(c, c.r.resolved.kernel),
          kKernelDoc);
  return true;
}

/// kernel-invalid: an uncompressed kernel that is not an arm64 Image.
bool kernel_rule_invalid(Ctx& c, const KernelFile& k) {
  if (file_is_arm64_image(k.path())) return false;
  c.add(Severity::Error, "kernel-invalid",
        k.boot.string() + "/" + k.name + k.where + " is not an arm64 Image (no \"ARM\\x64\" magic at byte 0x38)",
        k.name == kVmlinux ? "piprov boot sync-kernel " + c.boot_q + " --force"
                           : reinstall_kernel_fix(c, c.r.resolved.kernel),
        "Linux Documentation/arch/arm64/booting.rst: Image header");
  return true;
}

/// vmlinuz-corrupt, when vmlinuz itself does not decode (sync-kernel cannot help
/// then); returns the fix for vmlinux's state ("piprov boot sync-kernel ...",
/// after a reinstall when vmlinuz is corrupt).
std::string vmlinuz_decodes_or_finding(Ctx& c, const KernelFile& k) {
  std::string fix = "piprov boot sync-kernel " + c.boot_q;
  try {
    (void)decode_kernel(k.boot / kVmlinuz, [](std::span<const std::byte>) {});
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Verify) throw;
    std::string why = e.what();
    if (auto cut = why.find("; nothing was replaced"); cut != std::string::npos) why.erase(cut);
    c.add(Severity::Error, "vmlinuz-corrupt", why + ": sync-kernel cannot make vmlinux from it",
          "reinstall the kernel package (apt install --reinstall linux-image-raspi), then " + fix);
    fix = "(after the reinstall) " + fix;
  }
  return fix;
}

/// vmlinux-<state> (stale, no stamp, missing, invalid) and no-vmlinuz: whether
/// the vmlinux the firmware loads is vmlinuz decompressed and can stay so.
bool kernel_rule_vmlinux_state(Ctx& c, const KernelFile& k) {
  if (k.name != kVmlinux) return false;
  switch (c.r.kernel.state) {
    case KernelState::Fresh: break;
    case KernelState::NoStamp:
    case KernelState::Stale:
    case KernelState::Missing:
    case KernelState::Invalid: {
      std::string fix = vmlinuz_decodes_or_finding(c, k);
      c.add(Severity::Error, std::string("vmlinux-") + to_string(c.r.kernel.state),
            "vmlinux is " + std::string(to_string(c.r.kernel.state)) + ": " + c.r.kernel.detail, fix);
      break;
    }
    case KernelState::NoVmlinuz:
      c.add(Severity::Warning, "no-vmlinuz",
            c.r.kernel.detail + ": the apt hook cannot refresh vmlinux after a kernel update",
            "reinstall the kernel package (apt install --reinstall linux-image-raspi)");
      break;
  }
  return true;
}

/// The kernel rules in the order they are checked; the first that returns true ends the check.
constexpr KernelRule kKernelRules[] = {kernel_rule_missing,    kernel_rule_fallback, kernel_rule_uboot,
                                       kernel_rule_compressed, kernel_rule_invalid,  kernel_rule_vmlinux_state};

void check_kernel_file(Ctx& c) {
  const auto& rb = c.r.resolved;
  c.r.kernel_file = rb.kernel;
  c.r.kernel = kernel_status(c.o.boot_dir, true);
  const KernelFile k{
      c.o.boot_dir, rb.kernel,
      rb.kernel_line ? " (" + rb.kernel_line->file + " line " + std::to_string(rb.kernel_line->line) + ")" : ""};
  for (KernelRule rule : kKernelRules)
    if (rule(c, k)) return;
}

}  // namespace

std::string prefix_fallback_note(const Ctx& c) {
  const auto& rb = c.r.resolved;
  if (rb.prefix_missing.empty() || rb.prefix_ignored) return "";
  return " (os_prefix=" + rb.os_prefix_line->value + " is used only when its kernel and .dtb are both there: without " +
         rb.prefix_missing + " the firmware falls back to the top level, where there is no " + rb.top_kernel +
         " either)";
}

std::string pi5_unsupported_fix(const Ctx& c) {
  // boot patch only fixes the Pi 4 family's USB boot; Ubuntu boots the Pi 5 from 23.10 on.
  if (!patch_fixes_kernel(c.layout()) || !is_bcm2712(c.r.resolved.board)) return "";
  return "write a current image (Ubuntu 24.04 LTS or later, or Raspberry Pi OS): " + c.r.layout.release +
         " cannot boot a " + c.board + " (Ubuntu supports the Pi 5 from 23.10)";
}

/// The kernel the firmware loads; findings about the kernel= line carry
/// its line (in the file the message names) and key.
void check_kernel(Ctx& c) {
  check_os_prefix_ignored(c);
  const std::size_t first = c.r.findings.size();
  check_kernel_file(c);
  const auto& eff = c.r.resolved.kernel_line;
  if (!eff) return;
  for (std::size_t i = first; i < c.r.findings.size(); ++i)
    if (c.r.findings[i].rule.rfind("kernel-", 0) == 0) Ctx::locate(c.r.findings[i], eff->line, "kernel");
}

void check_initramfs(Ctx& c) {
  const auto& rb = c.r.resolved;
  const auto& eff = rb.initramfs_line;
  if (!eff) {
    std::string base = fs::path(rb.kernel).filename().string();
    if (c.layout() == LayoutId::DebianRaspi)
      c.add(Severity::Error, "initramfs-missing",
            "no `initramfs` for the " + c.board + ": Debian's kernel needs its initrd.img-<version> to mount root=" +
                (rb.root.empty() ? std::string("LABEL=RASPIROOT") : rb.root),
            "remove INITRAMFS=no from /etc/default/raspi-firmware, then dpkg-reconfigure raspi-firmware (its kernel "
            "hook writes `initramfs initrd.img-<version>`)",
            kInitramfsDoc);
    else if ((base == kVmlinux || base == kVmlinuz) && c.layout() != LayoutId::Unknown &&
             c.layout() != LayoutId::Raspios)  // Ubuntu's layouts: an unknown one gets no Ubuntu advice
      c.add(Severity::Error, "initramfs-missing",
            "no `initramfs` for the " + c.board + ": Ubuntu's kernel needs initrd.img to mount root=LABEL=writable",
            patch_fixes_kernel(c.layout())
                ? c.patch_cmd + " (adds `initramfs initrd.img followkernel` to [pi4])"
                : "add `initramfs initrd.img followkernel` to config.txt's [all] section, as Ubuntu ships it",
            kInitramfsDoc);
    return;
  }
  if (rb.initramfs.empty() || partition_has_file(c.o.boot_dir, rb.initramfs)) return;
  Ctx::locate(c.add(Severity::Error, "initramfs-file-missing",
                    "initramfs " + rb.initramfs + " (" + eff->file + " line " + std::to_string(eff->line) +
                        ") does not exist in " + c.o.boot_dir.string() +
                        os_prefix_note(rb.os_prefix, "initramfs " + eff->value, eff->value,
                                       rb.os_prefix.empty() ? "" : " under os_prefix=" + rb.os_prefix),
                    patch_fixes_kernel(c.layout())
                        ? "restore " + rb.initramfs + " (apt install --reinstall linux-image-raspi) or " + c.patch_cmd
                        : reinstall_kernel_fix(c, rb.initramfs),
                    kInitramfsDoc),
              eff->line, "initramfs");
}

}  // namespace piprov::boot::detail
