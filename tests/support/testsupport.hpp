#pragma once
// Helpers for tests: temp dirs, loop devices (root only), mounts, running
// commands, shell quoting, error expectations and the optional ../shared/data
// inputs. A test that cannot run here calls PIPROV_SKIP (or one of the
// PIPROV_REQUIRE_* macros below): it skips with the reason, or fails when
// PIPROV_TESTS_REQUIRE_ALL=1 (set by scripts/test.sh and .ci/run, which have
// root, loop devices, the tools and ../shared), so CI never skips silently.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace piprov::test {

/// A fresh directory under $TMPDIR (or /tmp), removed with its content.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "piprov-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

/// Result of run(): exit status (or 128+signal), and captured output.
struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `command` with /bin/sh -c, capturing stdout and stderr.
RunResult run(const std::string& command);

/// `s` single-quoted for /bin/sh.
std::string q(const std::string& s);

/// True when PIPROV_TESTS_REQUIRE_ALL=1: every skip is a failure.
bool require_all();

/// Why `tool` cannot be run here ("" when it is on PATH).
std::string tool_unavailable_reason(const std::string& tool);

/// Path of the built piprov binary.
std::string piprov_bin();

/// Project source dir (for scripts/), and ../shared (may not exist).
std::filesystem::path source_dir();
std::filesystem::path shared_dir();

/// Runs scripts/make-test-image.sh --layout LAYOUT OUT_IMG ROOT_MIB (a real
/// arm64 kernel; also writes OUT_IMG.xz). LAYOUT: "focal" (Ubuntu 20.04's U-Boot
/// chain), "noble" (24.04), "resolute" (26.04 A/B) or "raspios" (Raspberry Pi OS
/// bookworm). Returns "" on success, else why it failed (it downloads Debian
/// packages: offline?). `cloud_init`: a version of ../shared/data/cloud-init-schemas
/// (--cloud-init: the root fs carries that cloud-init's schema and dpkg entries), "" none.
std::string make_test_image(const std::filesystem::path& out_img, int root_mib, const std::string& layout = "focal",
                            const std::string& cloud_init = "");

/// ../shared/data/<rel> when present, else nullopt.
std::optional<std::filesystem::path> shared_data(const std::string& rel);

/// Why loop devices cannot be used here ("" when they can: root and /dev/loop-control).
std::string loop_unavailable_reason();

/// A loop device attached (with --partscan) to `backing`, detached on destruction.
struct LoopDevice {
  std::string path;  ///< "/dev/loopN"
  std::filesystem::path backing;
  /// Creates `backing` of `size_bytes` if it does not exist, then attaches it.
  LoopDevice(const std::filesystem::path& backing, std::uint64_t size_bytes, bool read_only = false);
  ~LoopDevice();
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;
};

/// `mount [-t TYPE] [-o OPTS] SOURCE DIR` (DIR created), unmounted on destruction.
/// Throws std::runtime_error with mount's stderr when the mount fails.
struct Mount {
  std::filesystem::path dir;
  Mount(const std::string& source, const std::filesystem::path& dir, const std::string& type = "",
        const std::string& options = "");
  ~Mount();
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;
};

/// Expects fn() to throw piprov::Error of `kind` whose message contains
/// `message`; reports a test failure otherwise (no throw, another kind,
/// another message, another exception type).
void expect_error(ErrorKind kind, std::string_view message, const std::function<void()>& fn);

/// `n` bytes at `offset` of a file or block device (buffered read).
std::string read_bytes(const std::filesystem::path& p, std::uint64_t offset, std::size_t n);

/// Reads a whole file (binary).
std::string read_file(const std::filesystem::path& p);
/// Writes a whole file (binary), creating parent dirs.
void write_file(const std::filesystem::path& p, const std::string& content);
/// Copies every file of the FAT file system on `part` (a partition such as
/// /dev/loop3p1, or an image file) into `dir` (created) with mtools' mcopy:
/// a boot partition read without mounting it (this kernel may lack vfat).
/// A fatal test failure when mcopy fails: call it in ASSERT_NO_FATAL_FAILURE.
void copy_fat_out(const std::string& part, const std::filesystem::path& dir);
/// Every regular file below `dir`: relative path -> content (to assert a tree is unchanged).
std::map<std::string, std::string> read_tree(const std::filesystem::path& dir);

}  // namespace piprov::test

/// Skips the test with the streamed reason (PIPROV_SKIP("no " << x)); fails
/// instead when PIPROV_TESTS_REQUIRE_ALL=1. Returns from the test body.
#define PIPROV_SKIP(reason)                                                      \
  do {                                                                           \
    std::ostringstream why_;                                                     \
    why_ << reason;                                                              \
    if (::piprov::test::require_all())                                           \
      GTEST_FAIL() << "would skip (PIPROV_TESTS_REQUIRE_ALL=1): " << why_.str(); \
    else                                                                         \
      GTEST_SKIP() << why_.str();                                                \
  } while (0)

#define PIPROV_REQUIRE_LOOP()                                                 \
  do {                                                                        \
    auto loop_why_ = ::piprov::test::loop_unavailable_reason();               \
    if (!loop_why_.empty()) PIPROV_SKIP("needs loop devices: " << loop_why_); \
  } while (0)

#define PIPROV_REQUIRE_TOOL(tool)                                   \
  do {                                                              \
    auto tool_why_ = ::piprov::test::tool_unavailable_reason(tool); \
    if (!tool_why_.empty()) PIPROV_SKIP(tool_why_);                 \
  } while (0)

#define PIPROV_REQUIRE_SHARED(rel, var)                                          \
  auto var##_opt_ = ::piprov::test::shared_data(rel);                            \
  if (!var##_opt_) PIPROV_SKIP("../shared/data/" << (rel) << " is not present"); \
  const std::filesystem::path var = *var##_opt_
