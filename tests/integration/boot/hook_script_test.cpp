// apt-hooks/piprov-kernel-sync (POSIX sh) and `piprov boot sync-kernel`: same behaviour.
#include <gtest/gtest.h>

#include "boot/sync.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::test::read_file;
using piprov::test::run;
using piprov::test::TempDir;
using piprov::test::write_file;

namespace {
// Both implementations, run the way the apt hook runs them.
std::string hook_cmd(const std::string& impl, const fs::path& boot) {
  std::string script = (piprov::test::source_dir() / "apt-hooks/piprov-kernel-sync").string();
  if (impl == "sh") return "PIPROV_FORCE_SH=1 PIPROV_BOOT_DIR='" + boot.string() + "' /bin/sh " + script;
  if (impl == "sh-via-piprov")
    return "PIPROV_BIN='" + piprov::test::piprov_bin() + "' PIPROV_BOOT_DIR='" + boot.string() + "' /bin/sh " + script;
  return piprov::test::piprov_bin() + " boot sync-kernel '" + boot.string() + "'";
}
}  // namespace

class HookImpl : public ::testing::TestWithParam<std::string> {};

TEST_P(HookImpl, RegeneratesOnUpdateAndDeletionKeepsOldOnCorruption) {
  TempDir d;
  auto a = test::fake_image(700000, 21), b = test::fake_image(650000, 22);
  test::compress_to(d.path / "vmlinuz", a);
  // First run: no vmlinux yet (the hand-made how-to hook failed here).
  auto r = run(hook_cmd(GetParam(), d.path));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(d.path / "vmlinux"), a);
  auto stamp = read_stamp(d.path / "vmlinux.stamp");
  ASSERT_TRUE(stamp) << read_file(d.path / "vmlinux.stamp");
  EXPECT_EQ(stamp->vmlinux_sha256, test::sha256(a));
  EXPECT_EQ(kernel_status(d.path, true).state, KernelState::Fresh);

  // Nothing changed: silent no-op.
  r = run(hook_cmd(GetParam(), d.path));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");

  // A newer kernel.
  test::compress_to(d.path / "vmlinuz", b);
  r = run(hook_cmd(GetParam(), d.path));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(d.path / "vmlinux"), b);
  EXPECT_EQ(read_file(d.path / "vmlinux.bak"), a);
  EXPECT_EQ(kernel_status(d.path, true).state, KernelState::Fresh);

  // vmlinux deleted by hand.
  fs::remove(d.path / "vmlinux");
  r = run(hook_cmd(GetParam(), d.path));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(d.path / "vmlinux"), b);

  // Corrupt vmlinuz: keep the old kernel, exit 0, warn.
  std::string gz = read_file(d.path / "vmlinuz");
  gz.resize(gz.size() - 5000);
  write_file(d.path / "vmlinuz", gz);
  r = run(hook_cmd(GetParam(), d.path));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("vmlinux is kept"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(d.path / "vmlinux"), b);
  for (const auto& e : fs::directory_iterator(d.path))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();

  // A vmlinuz that decodes to something else than an arm64 Image.
  test::compress_to(d.path / "vmlinuz", std::string(100000, 'z'));
  r = run(hook_cmd(GetParam(), d.path));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("arm64"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(d.path / "vmlinux"), b);
}

TEST_P(HookImpl, NonPiSystemWarnsAndExitsZero) {
  TempDir d;
  auto r = run(hook_cmd(GetParam(), d.path / "boot-firmware"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("not a Raspberry Pi Ubuntu boot partition"), std::string::npos) << r.err;
}

TEST_P(HookImpl, StampIsCompatibleBothWays) {
  // A stamp written by the other implementation counts as fresh.
  TempDir d;
  test::compress_to(d.path / "vmlinuz", test::fake_image(300000, 5));
  std::string other = GetParam() == "piprov" ? "sh" : "piprov";
  ASSERT_EQ(run(hook_cmd(other, d.path)).exit_code, 0);
  auto stamp = read_file(d.path / "vmlinux.stamp");
  auto r = run(hook_cmd(GetParam(), d.path));
  EXPECT_EQ(r.out + r.err, "");
  EXPECT_EQ(read_file(d.path / "vmlinux.stamp"), stamp);
}

INSTANTIATE_TEST_SUITE_P(Impl, HookImpl, ::testing::Values("sh", "sh-via-piprov", "piprov"), [](const auto& info) {
  std::string s = info.param;
  for (auto& c : s)
    if (c == '-') c = '_';
  return s;
});

TEST(HookScript, ShellcheckClean) {
  PIPROV_REQUIRE_TOOL("shellcheck");
  auto r = run("shellcheck -s sh " + (piprov::test::source_dir() / "apt-hooks/piprov-kernel-sync").string());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(HookScript, RunsUnderDash) {
  PIPROV_REQUIRE_TOOL("dash");
  TempDir d;
  auto a = test::fake_image(200000, 5);
  test::compress_to(d.path / "vmlinuz", a);
  auto r = run("PIPROV_FORCE_SH=1 PIPROV_BOOT_DIR='" + d.path.string() + "' dash " +
               (piprov::test::source_dir() / "apt-hooks/piprov-kernel-sync").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(d.path / "vmlinux"), a);
}

TEST(HookConf, RunsTheScriptWithShAndNeverFails) {
  std::string conf = read_file(piprov::test::source_dir() / "apt-hooks/99-piprov-kernel");
  EXPECT_NE(conf.find("DPkg::Post-Invoke {\"/bin/sh /usr/lib/piprov/piprov-kernel-sync || true\"; };"),
            std::string::npos);
  // apt runs the command with sh -c: with the script missing it must still exit 0.
  EXPECT_EQ(run("/bin/sh -c '/bin/sh /nonexistent/piprov-kernel-sync || true'").exit_code, 0);
}
