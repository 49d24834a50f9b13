// resolve_boot(): what the firmware loads (layout.hpp).
#include "boot/cmdline_txt.hpp"
#include "boot/layout.hpp"
#include "boot/patch.hpp"
#include "core/board.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

// Raspberry Pi documentation, config_txt/boot: kernel. Pi 4 family: kernel8.img,
// or kernel7l.img with arm_64bit=0; Pi 5 family: kernel_2712.img, and
// kernel8.img when that is not present.
std::string default_kernel(const fs::path& boot, const std::string& prefix, PiBoard board, bool arm64) {
  if (!is_bcm2712(board)) return arm64 ? "kernel8.img" : "kernel7l.img";
  if (!partition_has_file(boot, prefix + "kernel_2712.img") && partition_has_file(boot, prefix + "kernel8.img"))
    return "kernel8.img";
  return "kernel_2712.img";
}

// auto_initramfs=1 (config_txt/boot: auto_initramfs): the kernel's name with
// "kernel" replaced by "initramfs" and the extension dropped (kernel8.img -> initramfs8).
std::string auto_initramfs_name(const std::string& kernel) {
  if (kernel.rfind("kernel", 0) != 0) return "";
  std::string n = "initramfs" + kernel.substr(6);
  if (auto dot = n.rfind(".img"); dot != std::string::npos && dot + 4 == n.size()) n.erase(dot);
  return n;
}

/// A file config.txt names, relative to BOOT_DIR: under os_prefix, unless it starts with '/'
/// (Raspberry Pi documentation, config_txt: os_prefix: an absolute path is not prefixed).
std::string resolve_prefixed(const std::string& prefix, const std::string& name) {
  const std::string joined = name.empty() || name.front() != '/' ? prefix + name : name;
  return partition_relative(joined).value_or(joined);
}

/// The first file the firmware's os_prefix viability test misses under PREFIX: the kernel NAME,
/// then the expected .dtb (device_tree= when set, none when it is empty, else any of the board's
/// own DTBs, core board_dtbs(), which lists the upstream names upstream_kernel=1 prefers and the
/// downstream ones it falls back to); "" when both are there. Raspberry Pi documentation,
/// config_txt: os_prefix, device_tree, upstream_kernel.
std::string resolve_prefix_missing(const fs::path& boot, const std::string& prefix, const std::string& name,
                                   const std::optional<EffectiveValue>& device_tree, PiBoard board) {
  std::string kernel = resolve_prefixed(prefix, name);
  if (!partition_has_file(boot, kernel)) return kernel;
  if (device_tree) {
    if (device_tree->value.empty()) return "";  // no device tree is loaded: only the kernel is tested
    const std::string dtb = resolve_prefixed(prefix, device_tree->value);
    return partition_has_file(boot, dtb) ? "" : dtb;
  }
  const auto names = board_dtbs(board);
  for (auto n : names)
    if (partition_has_file(boot, prefix + std::string(n))) return "";
  return resolve_prefixed(prefix, std::string(names.front()));
}

/// REL (relative to BOOT) as it is spelled on the partition when partition_file() finds it in
/// another case (kernel8.img -> KERNEL8.IMG), so that messages and --json name the real file; REL
/// itself when it is missing.
std::string resolve_spelled(const fs::path& boot, const std::string& rel) {
  if (rel.empty() || !partition_has_file(boot, rel)) return rel;
  return partition_file(boot, rel)->lexically_relative(boot).generic_string();
}

}  // namespace

std::optional<std::string> partition_relative(std::string_view name) {
  const auto first = name.find_first_not_of('/');
  if (first == std::string_view::npos) return std::string();
  const fs::path rel = fs::path(name.substr(first)).lexically_normal();
  if (rel.empty() || rel == ".") return std::string();
  if (*rel.begin() == "..") return std::nullopt;
  return rel.generic_string();
}

std::optional<fs::path> partition_file(const fs::path& boot_dir, std::string_view name) {
  auto rel = partition_relative(name);
  if (!rel) return std::nullopt;
  // FAT names are case-insensitive to the firmware: each component missing as written is looked up
  // in its directory without regard to ASCII case (KERNEL8.IMG for kernel8.img), on a BOOT_DIR of a
  // case-sensitive file system too. The first component not found stays as written.
  fs::path p = boot_dir;
  bool found = true;
  for (const auto& comp : fs::path(*rel)) {
    std::error_code ec;
    fs::path next = p / comp;
    if (found && !fs::exists(fs::symlink_status(next, ec))) {
      found = false;
      const std::string want = to_lower(comp.string());
      for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
        if (to_lower(it->path().filename().string()) == want) {
          next = it->path();
          found = true;
          break;
        }
    }
    p = std::move(next);
  }
  return p;
}

bool partition_has_file(const fs::path& boot_dir, std::string_view name) {
  const auto p = partition_file(boot_dir, name);
  return p && is_file(*p);
}

std::optional<std::string> read_partition_file(const fs::path& boot_dir, std::string_view name) {
  const auto p = partition_file(boot_dir, name);
  return p && is_file(*p) ? read_file_if_exists(*p) : std::nullopt;
}

std::string prefixed_path(const std::string& os_prefix, const std::string& name) {
  return resolve_prefixed(os_prefix, name);
}

std::string os_prefix_note(const std::string& os_prefix, const std::string& written, const std::string& name,
                           const std::string& otherwise) {
  if (os_prefix.empty() || name.empty() || name.front() != '/') return otherwise;
  return " (" + written + " starts with /: os_prefix=" + os_prefix + " does not apply to it)";
}

ResolvedBoot resolve_boot(const fs::path& boot, const BootLayout& layout, PiBoard board) {
  (void)layout;  // what the firmware loads follows config.txt alone; the layout is for the caller's messages
  auto text = read_partition_file(boot, kConfigTxt);
  if (!text) throw Error(ErrorKind::Usage, boot.string() + " has no config.txt: not a Raspberry Pi boot partition");
  const auto config = ConfigTxt::parse(*text);
  const auto loader = include_loader(boot);
  const Board b = filter_board(board);
  ResolvedBoot r;
  r.board = board;
  // The firmware prepends os_prefix to a name and reads the result from the partition: "/abs/" is abs/ there.
  r.os_prefix_line = config.effective("os_prefix", b, loader);
  if (r.os_prefix_line)
    r.os_prefix = r.os_prefix_line->value.substr(
        std::min(r.os_prefix_line->value.size(), r.os_prefix_line->value.find_first_not_of('/')));
  if (!is_bcm2712(board))
    if (auto a = config.effective("arm_64bit", b, loader)) r.arm_64bit = a->value != "0";
  r.kernel_line = config.effective("kernel", b, loader);
  r.kernel_default = !r.kernel_line;
  std::string name = r.kernel_line ? r.kernel_line->value : default_kernel(boot, r.os_prefix, board, r.arm_64bit);
  // "unless the expected kernel and .dtb can be found at the new location/name, the prefix is ignored
  // (set to "")" (os_prefix): the firmware then boots the top-level files.
  if (!r.os_prefix.empty()) {
    r.prefix_missing =
        resolve_prefix_missing(boot, r.os_prefix, name, config.effective("device_tree", b, loader), board);
    if (!r.prefix_missing.empty()) {
      const std::string top = r.kernel_line ? r.kernel_line->value : default_kernel(boot, "", board, r.arm_64bit);
      r.top_kernel = resolve_spelled(boot, resolve_prefixed("", top));
      if (partition_has_file(boot, r.top_kernel)) {
        r.prefix_ignored = true;
        r.os_prefix.clear();
        name = top;
      }
    }
  }
  r.kernel = resolve_spelled(boot, resolve_prefixed(r.os_prefix, name));
  r.initramfs_line = config.effective("initramfs", b, loader);
  if (r.initramfs_line) {
    r.initramfs_args = r.initramfs_line->value;
    std::string file = r.initramfs_args.substr(0, r.initramfs_args.find_first_of(" \t"));
    if (!file.empty()) r.initramfs = resolve_spelled(boot, resolve_prefixed(r.os_prefix, file));
  } else if (auto ai = config.effective("auto_initramfs", b, loader); ai && ai->value == "1") {
    std::string file = auto_initramfs_name(name);
    if (!file.empty() && partition_has_file(boot, r.os_prefix + file))
      r.initramfs = resolve_spelled(boot, resolve_prefixed(r.os_prefix, file));
  }
  r.cmdline_line = config.effective("cmdline", b, loader);
  r.cmdline = resolve_spelled(
      boot, resolve_prefixed(r.os_prefix,
                             r.cmdline_line && !r.cmdline_line->value.empty() ? r.cmdline_line->value : "cmdline.txt"));
  if (auto c = read_partition_file(boot, r.cmdline)) {
    const auto cmdline = CmdlineTxt::parse(*c);
    r.root = cmdline.get("root").value_or("");
    r.cmdline_args = cmdline.command_line();
  }
  return r;
}

}  // namespace piprov::boot
