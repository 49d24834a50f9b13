// SIGKILL at random points while vmlinux is being regenerated, for the POSIX sh
// hook and for `piprov boot sync-kernel`: the boot dir must always hold a
// complete, valid vmlinux equal to gunzip() of the old or the new vmlinuz.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <random>
#include <thread>

#include "boot/kernel_image.hpp"
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

using piprov::boot::test::fake_image;
using piprov::boot::test::sha256;
// Starts the implementation in its own process group; kills the group after `delay`
// (nullopt: let it finish), a random point in the regeneration chosen by the
// caller. Returns the wall time it ran.
std::chrono::microseconds run_impl(const std::string& impl, const fs::path& boot,
                                   std::optional<std::chrono::microseconds> delay) {
  // Orphaned group members get this process as their parent, so they can be reaped.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    if (impl == "sh") {
      ::setenv("PIPROV_FORCE_SH", "1", 1);
      ::setenv("PIPROV_BOOT_DIR", boot.c_str(), 1);
      std::string script = (piprov::test::source_dir() / "apt-hooks/piprov-kernel-sync").string();
      ::execl("/bin/sh", "sh", script.c_str(), static_cast<char*>(nullptr));
    } else {
      std::string bin = piprov::test::piprov_bin();
      ::execl(bin.c_str(), bin.c_str(), "boot", "sync-kernel", boot.c_str(), static_cast<char*>(nullptr));
    }
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  if (delay) {
    std::this_thread::sleep_for(*delay);
    ::kill(-pid, SIGKILL);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  // Orphans of the group (gzip, mv under sh) must be gone before the directory
  // is inspected: kill them and reap them (this process is their subreaper).
  ::kill(-pid, SIGKILL);
  while (::waitpid(-pid, &st, 0) > 0) {
  }
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
}

// Kills `impl` `runs` times at random points, alternating vmlinuz between two kernels.
void kill_many(const std::string& impl, const std::string& gz_a, const std::string& gz_b, const std::string& img_a,
               const std::string& img_b, int runs) {
  TempDir d("piprov-kill");
  write_file(d.path / "vmlinuz", gz_a);
  run_impl(impl, d.path, std::nullopt);  // start from a complete vmlinux = A
  ASSERT_EQ(read_file(d.path / "vmlinux"), img_a);
  const std::string ha = sha256(img_a), hb = sha256(img_b);
  // Duration of one uninterrupted regeneration (to spread the kills over it).
  write_file(d.path / "vmlinuz", gz_b);
  auto full = run_impl(impl, d.path, std::nullopt);
  ASSERT_EQ(sha256(read_file(d.path / "vmlinux")), hb);
  std::mt19937 rng(12345);
  std::uniform_int_distribution<long> pick(0, static_cast<long>(full.count() * 12 / 10));
  // When the timing run was slowed down (other tests on the machine), the
  // kills can all land after the rename: then more runs (at most 40), the
  // range of the kill point halved after each that landed too late, until
  // one lands mid-way.
  long range = static_cast<long>(full.count() * 12 / 10);
  int killed_mid_way = 0;
  int i = 0;
  for (; i < runs || (killed_mid_way == 0 && i < runs + 40); ++i) {
    write_file(d.path / "vmlinuz", i % 2 ? gz_b : gz_a);
    std::string before = sha256(read_file(d.path / "vmlinux"));
    long at = i < runs ? pick(rng) : std::uniform_int_distribution<long>(0, range)(rng);
    run_impl(impl, d.path, std::chrono::microseconds(at));
    ASSERT_TRUE(fs::exists(d.path / "vmlinux")) << impl << " run " << i;
    ASSERT_TRUE(file_is_arm64_image(d.path / "vmlinux")) << impl << " run " << i;
    std::string now = sha256(read_file(d.path / "vmlinux"));
    ASSERT_TRUE(now == ha || now == hb) << impl << " run " << i << ": vmlinux is neither kernel";
    if (now == before) {
      ++killed_mid_way;
    } else if (i >= runs) {
      range = std::max(range / 2, 1000L);
    }
  }
  // Then an uninterrupted run converges on the current vmlinuz.
  run_impl(impl, d.path, std::nullopt);
  EXPECT_EQ(sha256(read_file(d.path / "vmlinux")), (i - 1) % 2 ? hb : ha);
  EXPECT_EQ(kernel_status(d.path, true).state, KernelState::Fresh);
  // Some kills must have landed before the rename, or the test proved nothing.
  EXPECT_GT(killed_mid_way, 0);
}

// The gzip of `s` (gzip -n, as the hook's tests and Ubuntu's vmlinuz).
std::string gzip(const std::string& s) {
  TempDir d("piprov-gz");
  piprov::boot::test::compress_to(d.path / "out", s);
  return read_file(d.path / "out");
}

}  // namespace

class KillDuringRegeneration : public ::testing::TestWithParam<std::string> {};

TEST_P(KillDuringRegeneration, FiftyKillsWithAFakeKernel) {
  auto a = fake_image(6 << 20, 1), b = fake_image(7 << 20, 2);
  kill_many(GetParam(), gzip(a), gzip(b), a, b, 50);
}

TEST_P(KillDuringRegeneration, AFewKillsWithTheRealKernel) {
  TempDir d("piprov-kill-real");
  if (auto why = piprov::test::make_test_image(d.path / "u.img", 64); !why.empty()) PIPROV_SKIP(why);
  ASSERT_EQ(run("MTOOLS_SKIP_CHECK=1 mcopy -n -i '" + (d.path / "u.img").string() + "@@1M' ::/vmlinuz '" +
                (d.path / "vmlinuz").string() + "'")
                .exit_code,
            0);
  std::string gz_a = read_file(d.path / "vmlinuz");
  ASSERT_EQ(run("gzip -dc '" + (d.path / "vmlinuz").string() + "' > '" + (d.path / "Image").string() + "'").exit_code,
            0);
  std::string img_a = read_file(d.path / "Image");
  std::string img_b = img_a;  // "a newer kernel": same header, different body
  for (std::size_t i = 4096; i < img_b.size(); i += 4096) img_b[i] = static_cast<char>(img_b[i] ^ 0x5a);
  kill_many(GetParam(), gz_a, gzip(img_b), img_a, img_b, 4);
}

INSTANTIATE_TEST_SUITE_P(Impl, KillDuringRegeneration, ::testing::Values("sh", "piprov"));
