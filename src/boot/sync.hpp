#pragma once
// vmlinuz -> vmlinux on a Pi boot partition, done the way the apt hook must do
// it (after every dpkg run: fast, atomic, never a truncated kernel): a hash check first (fast no-op when vmlinuz is
// unchanged), regenerate when vmlinux is missing or stale, decode into a temp
// file, verify it is an arm64 Image, copy the current vmlinux to vmlinux.bak,
// rename the new one into place, fsync the directory, then write vmlinux.stamp.
// A crash at any point leaves a complete vmlinux (old or new).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace piprov::boot {

/// File names on the boot partition.
inline constexpr const char* kVmlinuz = "vmlinuz";
inline constexpr const char* kVmlinux = "vmlinux";
inline constexpr const char* kVmlinuxBak = "vmlinux.bak";
inline constexpr const char* kVmlinuxStamp = "vmlinux.stamp";

/// Contents of vmlinux.stamp (key=value lines, shared with apt-hooks/piprov-kernel-sync):
/// vmlinuz_sha256=HEX, vmlinux_sha256=HEX, vmlinux_size=BYTES, compression=gzip.
struct KernelStamp {
  std::string vmlinuz_sha256;
  std::string vmlinux_sha256;
  std::uint64_t vmlinux_size = 0;
  std::string compression;
};

/// Parses a stamp file; nullopt when it is missing or lacks a field.
std::optional<KernelStamp> read_stamp(const std::filesystem::path& stamp_file);
/// The stamp's text.
std::string format_stamp(const KernelStamp& s);

/// State of vmlinux against vmlinuz.
enum class KernelState {
  Fresh,      ///< stamp matches vmlinuz, vmlinux has the recorded size (and hash when checked) and magic
  NoVmlinuz,  ///< BOOT_DIR has no vmlinuz: not a Ubuntu Pi boot partition
  Missing,    ///< vmlinux does not exist
  NoStamp,    ///< vmlinux exists but was not made by piprov (no/invalid vmlinux.stamp): freshness unknown
  Stale,      ///< vmlinuz changed since vmlinux was made, or vmlinux differs from what was made
  Invalid,    ///< vmlinux is not an arm64 Image
};
const char* to_string(KernelState s);

/// Freshness of BOOT_DIR/vmlinux. `full` also hashes vmlinux (27 MB) against the
/// stamp; without it size + magic are compared (what the hook's fast path does).
struct KernelStatus {
  KernelState state = KernelState::Missing;
  std::string detail;  ///< one sentence for the user
  std::string vmlinuz_sha256;
};
KernelStatus kernel_status(const std::filesystem::path& boot_dir, bool full = false);

/// What sync_kernel() did.
struct SyncResult {
  /// NotUsed: with only_when_booted, config.txt does not boot vmlinux on a Pi 4 (nothing written).
  enum class Outcome { UpToDate, Regenerated, Failed, NotAPi, NotUsed } outcome = Outcome::UpToDate;
  std::string message;               ///< one line for the user (warning text when Failed/NotAPi)
  std::vector<std::string> actions;  ///< file actions done (or planned with dry_run)
};

struct SyncOptions {
  bool force = false;    ///< regenerate even when fresh
  bool dry_run = false;  ///< say what would be done, change nothing
  bool full = false;     ///< hash vmlinux too when deciding freshness
  /// Write nothing unless config.txt's Pi 4 kernel= (layout.hpp resolve_boot) is
  /// vmlinux (`boot sync-kernel`, the hook); `force` overrides. Off for boot patch,
  /// which makes vmlinux before config.txt names it.
  bool only_when_booted = false;
};

/// Brings BOOT_DIR/vmlinux up to date with BOOT_DIR/vmlinuz. Never throws for
/// expected failures (corrupt vmlinuz, full disk): returns Outcome::Failed
/// with the old vmlinux kept, so the apt hook can warn and exit 0. Returns
/// NotAPi when BOOT_DIR or its vmlinuz does not exist.
SyncResult sync_kernel(const std::filesystem::path& boot_dir, const SyncOptions& opts = {});

/// The outcome's stable name in `boot sync-kernel` output: "up-to-date",
/// "regenerated" ("would-regenerate" when `dry_run`), "failed", "not-a-pi", "not-used".
std::string_view sync_outcome_name(SyncResult::Outcome o, bool dry_run);

/// True for the outcomes the hook warns about (Failed, NotAPi): `boot sync-kernel`
/// prints their message on stderr ("warning", or "error" with --strict).
bool sync_failed(const SyncResult& r);

/// `boot sync-kernel`'s exit code. Like the apt hook, a failure is a warning (0)
/// unless `strict`: then Failed -> 4 (ErrorKind::Verify), NotAPi -> 2 (ErrorKind::Usage).
int sync_exit_code(const SyncResult& r, bool strict);

/// `boot sync-kernel --json` (docs/boot.md): {"schema": "piprov.boot.sync-kernel/1", "boot_dir",
/// "outcome" (sync_outcome_name), "message", "actions": [text...]}.
nlohmann::json sync_json(const std::filesystem::path& boot_dir, const SyncOptions& opts, const SyncResult& r);

}  // namespace piprov::boot
