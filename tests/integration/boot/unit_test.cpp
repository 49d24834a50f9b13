// The systemd path unit installed with the apt hook (apt-hooks/piprov-kernel-sync.path
// and .service): real systemd-analyze verify and systemctl --root on the installed
// files, and the service's ExecStart run against a boot dir whose vmlinuz changed
// without apt. PID 1 of a test machine is not necessarily systemd, so the unit is
// not started here; what it starts is run as the service would run it.
#include <gtest/gtest.h>

#include <regex>

#include "boot/apt_hook.hpp"
#include "boot/kernel_image.hpp"
#include "boot/sync.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::test::q;
using piprov::test::read_file;
using piprov::test::run;

namespace {

// A root with the hook installed by piprov and the host's systemd units
// (sysinit.target etc., which systemd-analyze verify --root resolves).
struct HookRoot : test::BootTree {
  HookRoot() {
    // Where piprov installs the hook, config.txt boots vmlinux on a Pi 4 (boot patch --method vmlinux).
    piprov::test::write_file(boot / "config.txt",
                             "[pi4]\nkernel=vmlinux\ninitramfs initrd.img followkernel\n[all]\narm_64bit=1\n");
    install_hook(root, boot, false);
    fs::create_directories(root / "usr/lib/systemd");
    auto cp = run("cp -a /usr/lib/systemd/system " + q((root / "usr/lib/systemd").string()));
    EXPECT_EQ(cp.exit_code, 0) << cp.err;
  }
  std::string verify() const {
    return "systemd-analyze verify --man=no --root=" + q(root.string()) + " " + q((root / kHookPathUnitRel).string()) +
           " " + q((root / kHookServiceUnitRel).string());
  }
  // The one ExecStart= of the installed service, as a path inside the root.
  fs::path exec_start() const {
    std::smatch m;
    std::string unit = read_file(root / kHookServiceUnitRel);
    EXPECT_TRUE(std::regex_search(unit, m, std::regex(R"((^|\n)ExecStart=(\S+)\n)"))) << unit;
    return root / fs::path(m[2].str()).relative_path();
  }
};

}  // namespace

TEST(HookUnit, SystemdAnalyzeVerifiesTheInstalledUnits) {
  PIPROV_REQUIRE_TOOL("systemd-analyze");
  HookRoot r;
  auto v = run(r.verify());
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_EQ(v.err, "") << "systemd-analyze verify warned";
  // The path unit watches the boot partition's vmlinuz and starts the service.
  std::string path_unit = read_file(r.root / kHookPathUnitRel);
  EXPECT_NE(path_unit.find("\nPathChanged=/boot/firmware/vmlinuz\n"), std::string::npos);
  EXPECT_NE(path_unit.find("\nUnit=piprov-kernel-sync.service\n"), std::string::npos);
  EXPECT_EQ(r.exec_start(), r.root / kHookScriptRel);

  // verify can fail: without the script the service's ExecStart does not exist.
  fs::remove(r.root / kHookScriptRel);
  v = run(r.verify());
  EXPECT_NE(v.exit_code, 0);
  EXPECT_NE(v.err.find("/usr/lib/piprov/piprov-kernel-sync is not executable"), std::string::npos) << v.err;
}

TEST(HookUnit, EnabledAsSystemctlSeesItAndGoneAfterRemoveHook) {
  PIPROV_REQUIRE_TOOL("systemctl");
  HookRoot r;
  std::string is_enabled = "systemctl --root=" + q(r.root.string()) + " is-enabled piprov-kernel-sync.path";
  auto e = run(is_enabled);
  EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
  EXPECT_EQ(e.out, "enabled\n");
  // What `systemctl --root enable` would write is what piprov wrote: enabling again changes nothing.
  auto links = run("find " + q((r.root / "etc/systemd").string()) + " -printf '%p %l\\n' | sort");
  auto en = run("systemctl --root=" + q(r.root.string()) + " enable piprov-kernel-sync.path");
  EXPECT_EQ(en.exit_code, 0) << en.err;
  EXPECT_EQ(run("find " + q((r.root / "etc/systemd").string()) + " -printf '%p %l\\n' | sort").out, links.out);

  remove_hook(r.root, false);
  e = run(is_enabled);
  EXPECT_NE(e.exit_code, 0) << e.out;
  EXPECT_FALSE(fs::exists(r.root / kHookPathUnitRel));
  EXPECT_FALSE(fs::is_symlink(r.root / kHookPathUnitWantsRel));
}

// What the path unit starts after a `dpkg -i` or a manual flash-kernel wrote a new
// vmlinuz (no apt): the service's ExecStart, once with piprov on the Pi (PIPROV_BIN)
// and once with the script's shell fallback.
TEST(HookUnit, ServiceCommandRegeneratesVmlinuxAfterVmlinuzChanged) {
  HookRoot r;
  fs::path cmd = r.exec_start();
  std::string env = "PIPROV_BOOT_DIR=" + q(r.boot.string()) + " ";
  auto first = run(env + "PIPROV_BIN=" + q(piprov::test::piprov_bin()) + " " + q(cmd.string()));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(read_file(r.boot / "vmlinux"), r.image);

  const std::pair<const char*, std::string> impls[] = {{"piprov", "PIPROV_BIN=" + q(piprov::test::piprov_bin()) + " "},
                                                       {"sh", "PIPROV_FORCE_SH=1 "}};
  std::uint32_t seed = 40;
  for (const auto& [impl, how] : impls) {
    std::string next = test::fake_image(900000 + seed, seed);
    ++seed;
    test::compress_to(r.boot / "vmlinuz", next);
    auto s = run(env + how + q(cmd.string()));
    EXPECT_EQ(s.exit_code, 0) << s.err;
    EXPECT_EQ(s.err, "") << impl;
    EXPECT_TRUE(file_is_arm64_image(r.boot / "vmlinux")) << impl;
    EXPECT_TRUE(read_file(r.boot / "vmlinux") == next) << impl << ": vmlinux != the new vmlinuz decompressed";
    EXPECT_EQ(kernel_status(r.boot, true).state, KernelState::Fresh) << impl;
    // Run again (the unit fires on every write): nothing to do, silent.
    auto again = run(env + how + q(cmd.string()));
    EXPECT_EQ(again.exit_code, 0);
    EXPECT_EQ(again.out + again.err, "") << impl;
  }
}

// After one kernel update the path unit and apt's Post-Invoke hook may run the sync
// at the same time: they take turns (flock on the boot dir), neither warns.
TEST(HookUnit, UnitAndAptHookAtOnceTakeTurns) {
  PIPROV_REQUIRE_TOOL("flock");
  HookRoot r;
  std::string next = test::fake_image(24u << 20, 77);
  test::compress_to(r.boot / "vmlinuz", next);
  std::string one = "PIPROV_FORCE_SH=1 PIPROV_BOOT_DIR=" + q(r.boot.string()) + " " + q(r.exec_start().string());
  auto both = run("(" + one + ") 2>&1 & (" + one + ") 2>&1 & wait");
  EXPECT_EQ(both.exit_code, 0);
  EXPECT_EQ(both.out.find("warning"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("vmlinux updated"), std::string::npos) << both.out;
  EXPECT_TRUE(read_file(r.boot / "vmlinux") == next);
  EXPECT_EQ(kernel_status(r.boot, true).state, KernelState::Fresh);
}
