#include "boot/sync.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <sstream>

#include "boot/kernel_image.hpp"
#include "boot/layout.hpp"
#include "boot/patch.hpp"
#include "core/atomic_file.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "core/hashing.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

// Removes temp files left by an interrupted earlier run (AtomicFile names them ".NAME.tmp.XXXXXX",
// the shell hook ".NAME.tmp.PID").
void remove_stale_temps(const fs::path& dir, std::vector<std::string>& actions) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    auto name = e.path().filename().string();
    for (const char* base : {kVmlinux, kVmlinuxBak, kVmlinuxStamp}) {
      std::string prefix = std::string(".") + base + ".tmp.";
      if (name.rfind(prefix, 0) == 0) {
        std::error_code rm;
        if (fs::remove(e.path(), rm)) actions.push_back("removed " + name + " left by an interrupted run");
        break;
      }
    }
  }
}

}  // namespace

std::optional<KernelStamp> read_stamp(const fs::path& stamp_file) {
  const auto text = read_file_if_exists(stamp_file);
  if (!text) return std::nullopt;
  KernelStamp s;
  bool size_seen = false;
  for (std::string line : split(*text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (k == "vmlinuz_sha256")
      s.vmlinuz_sha256 = v;
    else if (k == "vmlinux_sha256")
      s.vmlinux_sha256 = v;
    else if (k == "compression")
      s.compression = v;
    else if (k == "vmlinux_size") {
      try {
        s.vmlinux_size = std::stoull(v);
        size_seen = true;
      } catch (...) {
        return std::nullopt;
      }
    }
  }
  if (s.vmlinuz_sha256.size() != 64 || s.vmlinux_sha256.size() != 64 || !size_seen) return std::nullopt;
  return s;
}

std::string format_stamp(const KernelStamp& s) {
  std::ostringstream o;
  o << "# vmlinux was decompressed from vmlinuz by piprov (boot sync-kernel or the apt hook).\n"
    << "vmlinuz_sha256=" << s.vmlinuz_sha256 << "\n"
    << "vmlinux_sha256=" << s.vmlinux_sha256 << "\n"
    << "vmlinux_size=" << s.vmlinux_size << "\n"
    << "compression=" << s.compression << "\n";
  return o.str();
}

namespace {
constexpr EnumName<KernelState> kKernelStateNames[] = {
    {KernelState::Fresh, "fresh"},      {KernelState::NoVmlinuz, "no-vmlinuz"}, {KernelState::Missing, "missing"},
    {KernelState::NoStamp, "no-stamp"}, {KernelState::Stale, "stale"},          {KernelState::Invalid, "invalid"},
};
}  // namespace

const char* to_string(KernelState s) { return enum_name(kKernelStateNames, s).data(); }

KernelStatus kernel_status(const fs::path& boot_dir, bool full) {
  KernelStatus st;
  const fs::path vmlinuz = boot_dir / kVmlinuz, vmlinux = boot_dir / kVmlinux;
  std::error_code ec;
  if (!fs::is_regular_file(vmlinuz, ec)) {
    st.state = KernelState::NoVmlinuz;
    st.detail = vmlinuz.string() + " does not exist";
    return st;
  }
  st.vmlinuz_sha256 = sha256_file(vmlinuz);
  if (!fs::is_regular_file(vmlinux, ec)) {
    st.state = KernelState::Missing;
    st.detail = vmlinux.string() + " does not exist";
    return st;
  }
  if (!file_is_arm64_image(vmlinux)) {
    st.state = KernelState::Invalid;
    st.detail = vmlinux.string() + " is not an arm64 Image (no \"ARM\\x64\" magic at byte 0x38)";
    return st;
  }
  auto stamp = read_stamp(boot_dir / kVmlinuxStamp);
  if (!stamp) {
    st.state = KernelState::NoStamp;
    st.detail = vmlinux.string() + " has no valid " + kVmlinuxStamp + ", so nothing says it matches vmlinuz";
    return st;
  }
  if (stamp->vmlinuz_sha256 != st.vmlinuz_sha256) {
    st.state = KernelState::Stale;
    st.detail = "vmlinuz changed since vmlinux was made (SHA-256 " + st.vmlinuz_sha256.substr(0, 12) + " vs " +
                stamp->vmlinuz_sha256.substr(0, 12) + " in " + kVmlinuxStamp + ")";
    return st;
  }
  auto size = fs::file_size(vmlinux, ec);
  if (ec || size != stamp->vmlinux_size) {
    st.state = KernelState::Stale;
    st.detail = "vmlinux is " + std::to_string(size) + " bytes, " + kVmlinuxStamp + " says " +
                std::to_string(stamp->vmlinux_size);
    return st;
  }
  if (full && sha256_file(vmlinux) != stamp->vmlinux_sha256) {
    st.state = KernelState::Stale;
    st.detail = "vmlinux's SHA-256 differs from the one recorded in " + std::string(kVmlinuxStamp);
    return st;
  }
  st.state = KernelState::Fresh;
  st.detail = "vmlinux matches vmlinuz (SHA-256 " + st.vmlinuz_sha256.substr(0, 12) + ")";
  return st;
}

SyncResult sync_kernel(const fs::path& boot_dir, const SyncOptions& opts) {
  SyncResult r;
  std::error_code ec;
  if (!fs::is_directory(boot_dir, ec) || !fs::is_regular_file(boot_dir / kVmlinuz, ec)) {
    r.outcome = SyncResult::Outcome::NotAPi;
    r.message = (boot_dir / kVmlinuz).string() + " not found: not a Raspberry Pi Ubuntu boot partition, nothing to do";
    return r;
  }
  if (opts.only_when_booted && !opts.force && fs::is_regular_file(boot_dir / kConfigTxt, ec)) {
    std::string kernel = resolve_boot(boot_dir, detect_layout(boot_dir, std::nullopt), PiBoard::Pi4).kernel;
    if (kernel != kVmlinux) {
      r.outcome = SyncResult::Outcome::NotUsed;
      r.message = (boot_dir / kConfigTxt).string() + " boots " + kernel +
                  " on a Pi 4, not vmlinux: nothing to do (piprov boot patch --method vmlinux sets that up)";
      return r;
    }
  }
  try {
    if (!opts.dry_run) remove_stale_temps(boot_dir, r.actions);
    auto st = kernel_status(boot_dir, opts.full);
    if (st.state == KernelState::Fresh && !opts.force) {
      r.outcome = SyncResult::Outcome::UpToDate;
      r.message = st.detail + "; nothing to do";
      return r;
    }
    const fs::path vmlinux = boot_dir / kVmlinux;
    const bool had_old = fs::exists(vmlinux, ec);
    std::string why = opts.force && st.state == KernelState::Fresh ? "forced" : st.detail;
    if (opts.dry_run) {
      r.outcome = SyncResult::Outcome::Regenerated;
      r.message = "would regenerate vmlinux (" + why + ")";
      if (had_old) r.actions.emplace_back("copy vmlinux to vmlinux.bak");
      r.actions.emplace_back("decompress vmlinuz to vmlinux (atomic replace)");
      r.actions.emplace_back("write vmlinux.stamp");
      return r;
    }
    AtomicFile tmp(vmlinux, 0755);
    auto dec = decompress_kernel(boot_dir / kVmlinuz, tmp);  // verifies the arm64 magic before anything moves
    if (had_old) {
      atomic_copy(vmlinux, boot_dir / kVmlinuxBak);
      r.actions.emplace_back("kept the previous vmlinux as vmlinux.bak");
    }
    // The old stamp goes first: a kill between the rename and the new stamp
    // then leaves "no stamp" (regenerate next time), never a stamp that
    // describes the other kernel (two kernels of one size would look fresh).
    fs::remove(boot_dir / kVmlinuxStamp, ec);
    tmp.commit();
    std::string how = dec.compression == KernelCompression::None
                          ? "vmlinuz is already an uncompressed arm64 Image: copied as is to vmlinux"
                          : "decompressed vmlinuz (" + std::string(to_string(dec.compression)) + ", " +
                                format_bytes(dec.in_bytes) + ") to vmlinux (" + format_bytes(dec.out_bytes) + ")";
    r.actions.push_back(how);
    atomic_write(boot_dir / kVmlinuxStamp,
                 format_stamp({st.vmlinuz_sha256, dec.out_sha256, dec.out_bytes, to_string(dec.compression)}));
    r.actions.emplace_back("wrote vmlinux.stamp");
    r.outcome = SyncResult::Outcome::Regenerated;
    r.message = "regenerated vmlinux (" + why + ")";
  } catch (const Error& e) {
    r.outcome = SyncResult::Outcome::Failed;
    r.message = std::string(e.what()) + "; the previous vmlinux is kept";
  }
  return r;
}

}  // namespace piprov::boot
