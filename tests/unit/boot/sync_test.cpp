// sync_kernel(): fast no-op, regeneration on change/deletion, old kernel kept on failure.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "boot/sync.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::test::read_file;
using piprov::test::TempDir;
using Outcome = SyncResult::Outcome;

TEST(SyncKernel, RegeneratesOnlyWhenNeeded) {
  TempDir d;
  auto a = test::fake_image(500000, 1), b = test::fake_image(600000, 2);
  test::compress_to(d.path / "vmlinuz", a);
  EXPECT_EQ(kernel_status(d.path).state, KernelState::Missing);

  auto r = sync_kernel(d.path);
  EXPECT_EQ(r.outcome, Outcome::Regenerated) << r.message;
  EXPECT_EQ(read_file(d.path / "vmlinux"), a);
  EXPECT_FALSE(fs::exists(d.path / "vmlinux.bak"));  // first run: nothing to keep, and no failure
  auto stamp = read_stamp(d.path / "vmlinux.stamp");
  ASSERT_TRUE(stamp);
  EXPECT_EQ(stamp->vmlinux_sha256, test::sha256(a));
  EXPECT_EQ(stamp->vmlinux_size, a.size());
  EXPECT_EQ(stamp->compression, "gzip");
  EXPECT_EQ(kernel_status(d.path, true).state, KernelState::Fresh);

  EXPECT_EQ(sync_kernel(d.path).outcome, Outcome::UpToDate);

  test::compress_to(d.path / "vmlinuz", b);  // kernel update
  EXPECT_EQ(kernel_status(d.path).state, KernelState::Stale);
  r = sync_kernel(d.path);
  EXPECT_EQ(r.outcome, Outcome::Regenerated);
  EXPECT_EQ(read_file(d.path / "vmlinux"), b);
  EXPECT_EQ(read_file(d.path / "vmlinux.bak"), a);

  fs::remove(d.path / "vmlinux");  // the hand-made hook's fault 4: a deleted vmlinux must come back
  EXPECT_EQ(kernel_status(d.path).state, KernelState::Missing);
  EXPECT_EQ(sync_kernel(d.path).outcome, Outcome::Regenerated);
  EXPECT_EQ(read_file(d.path / "vmlinux"), b);
}

TEST(SyncKernel, DetectsATamperedVmlinux) {
  TempDir d;
  auto a = test::fake_image(300000, 1);
  test::compress_to(d.path / "vmlinuz", a);
  sync_kernel(d.path);
  std::string t = a;
  t[1000] ^= 1;  // same size, different bytes: only the full hash sees it
  piprov::test::write_file(d.path / "vmlinux", t);
  EXPECT_EQ(kernel_status(d.path, false).state, KernelState::Fresh);
  EXPECT_EQ(kernel_status(d.path, true).state, KernelState::Stale);
  EXPECT_EQ(sync_kernel(d.path, {.full = true}).outcome, Outcome::Regenerated);
  EXPECT_EQ(read_file(d.path / "vmlinux"), a);
  piprov::test::write_file(d.path / "vmlinux", "truncated");
  EXPECT_EQ(kernel_status(d.path).state, KernelState::Invalid);
  piprov::test::write_file(d.path / "vmlinux.stamp", "garbage\n");
  EXPECT_EQ(kernel_status(d.path).state, KernelState::Invalid);
}

TEST(SyncKernel, CorruptVmlinuzKeepsTheOldKernel) {
  TempDir d;
  auto a = test::fake_image(300000, 1);
  test::compress_to(d.path / "vmlinuz", a);
  sync_kernel(d.path);
  std::string gz = read_file(d.path / "vmlinuz");
  gz[gz.size() / 2] ^= 0x55;
  gz[gz.size() / 2 + 1] ^= 0x55;
  piprov::test::write_file(d.path / "vmlinuz", gz);
  auto r = sync_kernel(d.path);
  EXPECT_EQ(r.outcome, Outcome::Failed);
  EXPECT_NE(r.message.find("the previous vmlinux is kept"), std::string::npos) << r.message;
  EXPECT_EQ(read_file(d.path / "vmlinux"), a);
  for (const auto& e : fs::directory_iterator(d.path))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(SyncKernel, NonPiDirAndStaleTemps) {
  TempDir d;
  EXPECT_EQ(sync_kernel(d.path / "nope").outcome, Outcome::NotAPi);
  EXPECT_EQ(sync_kernel(d.path).outcome, Outcome::NotAPi);
  test::compress_to(d.path / "vmlinuz", test::fake_image(100000, 9));
  piprov::test::write_file(d.path / ".vmlinux.tmp.4242", "half a kernel");
  auto r = sync_kernel(d.path);
  EXPECT_EQ(r.outcome, Outcome::Regenerated);
  EXPECT_FALSE(fs::exists(d.path / ".vmlinux.tmp.4242"));
  ASSERT_FALSE(r.actions.empty());
  EXPECT_EQ(r.actions[0], "removed .vmlinux.tmp.4242 left by an interrupted run");
}

TEST(SyncKernel, DryRunChangesNothing) {
  TempDir d;
  test::compress_to(d.path / "vmlinuz", test::fake_image(100000, 9));
  auto r = sync_kernel(d.path, {.dry_run = true});
  EXPECT_EQ(r.outcome, Outcome::Regenerated);
  EXPECT_FALSE(fs::exists(d.path / "vmlinux"));
  EXPECT_FALSE(fs::exists(d.path / "vmlinux.stamp"));
}

// `boot sync-kernel` (only_when_booted): a vmlinux nothing boots is not written.
TEST(SyncKernel, OnlyWhereConfigTxtBootsVmlinux) {
  TempDir d;
  test::compress_to(d.path / "vmlinuz", test::fake_image(100000, 9));
  piprov::test::write_file(d.path / "config.txt", "[pi4]\nkernel=uboot_rpi_4.bin\n[all]\narm_64bit=1\n");
  auto r = sync_kernel(d.path, {.only_when_booted = true});
  EXPECT_EQ(r.outcome, Outcome::NotUsed);
  EXPECT_NE(r.message.find("boots uboot_rpi_4.bin on a Pi 4, not vmlinux: nothing to do"), std::string::npos)
      << r.message;
  EXPECT_FALSE(fs::exists(d.path / "vmlinux"));
  EXPECT_EQ(sync_kernel(d.path, {.force = true, .only_when_booted = true}).outcome, Outcome::Regenerated);
  fs::remove(d.path / "vmlinux");
  piprov::test::write_file(d.path / "config.txt",
                           "[pi4]\nkernel=vmlinux\ninitramfs initrd.img followkernel\n[all]\narm_64bit=1\n");
  EXPECT_EQ(sync_kernel(d.path, {.only_when_booted = true}).outcome, Outcome::Regenerated);
  EXPECT_TRUE(fs::exists(d.path / "vmlinux"));
}

// What `boot sync-kernel` reports: names, JSON and the hook's exit policy.
TEST(SyncKernel, OutcomeNamesJsonAndExitCodes) {
  EXPECT_EQ(sync_outcome_name(Outcome::UpToDate, false), "up-to-date");
  EXPECT_EQ(sync_outcome_name(Outcome::Regenerated, false), "regenerated");
  EXPECT_EQ(sync_outcome_name(Outcome::Regenerated, true), "would-regenerate");
  EXPECT_EQ(sync_outcome_name(Outcome::Failed, false), "failed");
  EXPECT_EQ(sync_outcome_name(Outcome::NotAPi, false), "not-a-pi");
  EXPECT_EQ(sync_outcome_name(Outcome::NotUsed, false), "not-used");
  SyncResult failed{.outcome = Outcome::Failed, .message = "corrupt", .actions = {}};
  SyncResult not_pi{.outcome = Outcome::NotAPi, .message = "no vmlinuz", .actions = {}};
  SyncResult fresh{.outcome = Outcome::UpToDate, .message = "fresh", .actions = {"a"}};
  EXPECT_TRUE(sync_failed(failed));
  EXPECT_TRUE(sync_failed(not_pi));
  EXPECT_FALSE(sync_failed(fresh));
  EXPECT_EQ(sync_exit_code(failed, false), 0);  // the hook warns and goes on
  EXPECT_EQ(sync_exit_code(failed, true), 4);
  EXPECT_EQ(sync_exit_code(not_pi, true), 2);
  EXPECT_EQ(sync_exit_code(fresh, true), 0);
  auto j = sync_json("/boot/firmware", {.dry_run = true}, fresh);
  EXPECT_EQ(j.dump(), R"({"actions":["a"],"boot_dir":"/boot/firmware","message":"fresh","outcome":"up-to-date",)"
                      R"("schema":"piprov.boot.sync-kernel/1"})");
}
