#pragma once
// Helpers for tests: temp dirs, loop devices (root only), running commands,
// and the optional ../shared/data inputs. Tests that need what is missing call
// GTEST_SKIP() with a message through the REQUIRE_* macros below.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

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

/// Path of the built piprov binary.
std::string piprov_bin();

/// Project source dir (for scripts/), and ../shared (may not exist).
std::filesystem::path source_dir();
std::filesystem::path shared_dir();

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

/// Reads a whole file (binary).
std::string read_file(const std::filesystem::path& p);
/// Writes a whole file (binary), creating parent dirs.
void write_file(const std::filesystem::path& p, const std::string& content);
/// Every regular file below `dir`: relative path -> content (to assert a tree is unchanged).
std::map<std::string, std::string> read_tree(const std::filesystem::path& dir);

}  // namespace piprov::test

#define PIPROV_REQUIRE_LOOP()                                          \
  do {                                                                 \
    auto why_ = ::piprov::test::loop_unavailable_reason();             \
    if (!why_.empty()) GTEST_SKIP() << "needs loop devices: " << why_; \
  } while (0)

#define PIPROV_REQUIRE_SHARED(rel, var)                                             \
  auto var##_opt_ = ::piprov::test::shared_data(rel);                               \
  if (!var##_opt_) GTEST_SKIP() << "../shared/data/" << (rel) << " is not present"; \
  const std::filesystem::path var = *var##_opt_
