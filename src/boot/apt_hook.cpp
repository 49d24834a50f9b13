#include "boot/apt_hook.hpp"

#include <sys/stat.h>
#include <optional>
#include <regex>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/write_guard.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

// The hand-made hook's script lives in the boot partition; on a mounted image that is
// BOOT_DIR, on the Pi ROOT_DIR/boot/firmware.
fs::path find_seed_script(const fs::path& root_dir, const fs::path& boot_dir) {
  std::error_code ec;
  for (const auto& p : {boot_dir / kSeedHookScriptName, root_dir / "boot/firmware" / kSeedHookScriptName})
    if (!p.empty() && fs::is_regular_file(p, ec)) return p;
  return {};
}

// Every snippet in apt.conf.d that runs the hand-made auto_decompress_kernel.
std::vector<fs::path> seed_snippets(const fs::path& root_dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root_dir / "etc/apt/apt.conf.d", ec)) {
    if (!e.is_regular_file(ec)) continue;
    auto text = read_file_if_exists(e.path());
    if (e.path().filename() == fs::path(kSeedHookConfRel).filename() ||
        (text && text->find(kSeedHookScriptName) != std::string::npos))
      out.push_back(e.path());
  }
  return out;
}

// True when ROOT_DIR's wants symlink points at the path unit.
// Where systemd finds a system unit, the first one found wins (systemd.unit(5),
// "System Unit Search Path"): etc/systemd/system is where `boot patch --root`
// installs the units, usr/lib and lib/systemd/system where piprov's .deb does
// (its postinst then removes identical copies from etc).
constexpr const char* kUnitDirs[] = {"etc/systemd/system", "usr/lib/systemd/system", "lib/systemd/system"};

/// The text of system unit NAME under ROOT_DIR as systemd would load it; nullopt when none exists.
std::optional<std::string> read_unit(const fs::path& root_dir, const std::string& name) {
  for (const char* dir : kUnitDirs)
    if (auto text = read_file_if_exists(root_dir / dir / name)) return text;
  return std::nullopt;
}

/// True when multi-user.target.wants/piprov-kernel-sync.path points at one of
/// the unit directories above (`systemctl enable` and deb-systemd-helper write
/// the path of the unit they found).
bool path_unit_enabled(const fs::path& root_dir) {
  std::error_code ec;
  auto target = fs::read_symlink(root_dir / kHookPathUnitWantsRel, ec);
  if (ec) return false;
  for (const char* dir : kUnitDirs)
    if (target == fs::path("/") / dir / "piprov-kernel-sync.path") return true;
  return false;
}

// The symlink `systemctl --root=ROOT_DIR enable piprov-kernel-sync.path` writes
// (a wrong one is replaced).
void enable_path_unit(const fs::path& root_dir, bool dry_run, std::vector<std::string>& actions) {
  if (path_unit_enabled(root_dir)) return;
  fs::path link = root_dir / kHookPathUnitWantsRel;
  if (!dry_run) {
    std::error_code ec;
    fs::create_directories(link.parent_path(), ec);
    if (ec) throw io_error("cannot create " + link.parent_path().string(), ec.value());
    fs::remove(link, ec);
    fs::create_symlink(kHookPathUnitTarget, link, ec);
    if (ec) throw io_error("cannot create the symlink " + link.string(), ec.value());
  }
  actions.push_back(std::string(dry_run ? "would enable" : "enabled") + " piprov-kernel-sync.path: " + link.string() +
                    " -> " + kHookPathUnitTarget);
}

}  // namespace

std::vector<std::string> seed_hook_faults(std::string_view script_text) {
  std::string s(script_text);
  std::vector<std::string> f;
  auto has = [&](const char* re) { return std::regex_search(s, std::regex(re)); };
  if (has(R"((^|\n)\s*CKPATH=/vmlinuz)") || has(R"((^|\n)\s*DKPATH=/vmlinux)"))
    f.emplace_back(
        "1: written through an unquoted heredoc, so $BTPATH expanded at install time: the script reads "
        "CKPATH=/vmlinuz (the wrong file)");
  if (has(R"(^#!\s*/bin/bash\s+-e)") && s.find("$?") != std::string::npos)
    f.emplace_back(
        "2: '#!/bin/bash -e' with '$?' checks: under -e the checks are dead, and apt runs it as "
        "'/bin/bash script', which ignores the -e");
  if (has(R"(\bmv\s+\S*(DKPATH|vmlinux)\S*\s+\S*\.bak)"))
    f.emplace_back("3: 'mv vmlinux vmlinux.bak' fails on the first run (no vmlinux yet) and apt reports a failed hook");
  if (s.find("--ignore-missing") != std::string::npos)
    f.emplace_back("4: 'md5sum --ignore-missing' passes when vmlinux was deleted, so it is never regenerated");
  if (has(R"(zcat\s+\S+\s*>\s*\S*(DKPATH|vmlinux)\b)"))
    f.emplace_back("5: 'zcat vmlinuz > vmlinux' writes in place: a power cut or a full FAT leaves a truncated kernel");
  if (s.find("will be compressed") != std::string::npos)
    f.emplace_back("6: says \"kernel will be compressed\" when it decompresses");
  return f;
}

void check_hook_paths(const fs::path& root_dir) {
  for (const char* rel : {kHookScriptRel, kHookConfRel, kHookServiceUnitRel, kHookPathUnitRel, kHookPathUnitWantsRel})
    (void)inside_root(root_dir, rel);
}

std::vector<std::string> install_hook(const fs::path& root_dir, const fs::path& boot_dir, bool dry_run) {
  check_hook_paths(root_dir);
  std::error_code ec;
  if (!fs::is_directory(root_dir / "etc/apt", ec))
    throw Error(ErrorKind::Usage, root_dir.string() +
                                      " has no etc/apt: not the root filesystem of a Debian/Ubuntu system (pass the "
                                      "mounted 'writable' partition as --root)");
  std::vector<std::string> actions;
  auto put = [&](const char* rel, std::string_view content, unsigned mode) {
    fs::path p = root_dir / rel;
    auto cur = read_file_if_exists(p);
    struct stat sb {};
    bool mode_ok = ::stat(p.c_str(), &sb) == 0 && (sb.st_mode & 07777) == mode;
    if (cur && *cur == content && mode_ok) return;
    if (!dry_run) {
      fs::create_directories(p.parent_path(), ec);
      if (ec) throw io_error("cannot create " + p.parent_path().string(), ec.value());
      atomic_write(p, content, mode);
    }
    actions.push_back((dry_run ? (cur ? "would update " : "would install ") : (cur ? "updated " : "installed ")) +
                      p.string() + (mode == 0755 ? " (mode 0755)" : " (mode 0644)"));
  };
  put(kHookScriptRel, hook_script(), 0755);
  put(kHookConfRel, hook_conf(), 0644);
  put(kHookServiceUnitRel, hook_service_unit(), 0644);
  put(kHookPathUnitRel, hook_path_unit(), 0644);
  enable_path_unit(root_dir, dry_run, actions);
  for (const auto& snippet : seed_snippets(root_dir)) {
    if (!dry_run && !fs::remove(snippet, ec) && ec) throw io_error("cannot remove " + snippet.string(), ec.value());
    actions.push_back((dry_run ? "would remove" : "removed") + std::string(" the hand-made hook ") + snippet.string() +
                      " (replaced by 99-piprov-kernel)");
  }
  for (const auto& dir : {boot_dir, root_dir / "boot/firmware"}) {
    for (const char* name : {kSeedHookScriptName, kSeedHookMd5Name}) {
      fs::path p = dir / name;
      if (!fs::is_regular_file(p, ec)) continue;
      if (!dry_run && !fs::remove(p, ec) && ec) throw io_error("cannot remove " + p.string(), ec.value());
      actions.push_back((dry_run ? "would remove" : "removed") + std::string(" the hand-made hook's ") + p.string());
    }
  }
  return actions;
}

std::vector<std::string> remove_hook(const fs::path& root_dir, bool dry_run) {
  check_hook_paths(root_dir);
  std::vector<std::string> actions;
  for (const char* rel : {kHookPathUnitWantsRel, kHookPathUnitRel, kHookServiceUnitRel, kHookConfRel, kHookScriptRel}) {
    fs::path p = root_dir / rel;
    std::error_code ec;
    if (!fs::is_symlink(p, ec) && !fs::exists(p, ec)) continue;
    if (!dry_run && !fs::remove(p, ec) && ec) throw io_error("cannot remove " + p.string(), ec.value());
    actions.push_back((dry_run ? "would remove " : "removed ") + p.string());
  }
  return actions;
}

HookStatus inspect_hooks(const fs::path& root_dir, const fs::path& boot_dir) {
  HookStatus st;
  auto conf = read_file_if_exists(root_dir / kHookConfRel);
  st.conf_installed = conf.has_value();
  st.conf_current = conf && *conf == hook_conf();
  auto script = read_file_if_exists(root_dir / kHookScriptRel);
  st.script_installed = script.has_value();
  st.script_current = script && *script == hook_script();
  auto path_unit = read_unit(root_dir, "piprov-kernel-sync.path");
  auto service_unit = read_unit(root_dir, "piprov-kernel-sync.service");
  st.units_installed = path_unit && service_unit;
  st.units_current = st.units_installed && *path_unit == hook_path_unit() && *service_unit == hook_service_unit();
  st.unit_enabled = path_unit_enabled(root_dir);
  auto seeds = seed_snippets(root_dir);
  if (!seeds.empty()) {
    st.seed_hook = true;
    st.seed_hook_conf = seeds.front().string();
    auto sp = find_seed_script(root_dir, boot_dir);
    st.seed_script = sp.string();
    if (auto text = sp.empty() ? std::nullopt : read_file_if_exists(sp)) st.seed_faults = seed_hook_faults(*text);
  }
  return st;
}

}  // namespace piprov::boot
