// provision of several disks: after the one decode, every disk's steps run at
// the same time (a thread per disk). Three loop devices in one command; each
// disk is then checked on its own (new identity, patched boot partition, the
// apt hook, clean file systems, nothing left mounted), and the report gives
// each disk's time.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <set>
#include <vector>

#include "boot/apt_hook.hpp"
#include "boot/config_txt.hpp"
#include "core/strings.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::read_file;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

/// One provisioned disk, checked: its JSON target, the partition table, the
/// boot partition (read with mtools) and the root fs.
void expect_disk_provisioned(const nlohmann::json& t, const std::string& dev, const fs::path& work) {
  EXPECT_EQ(t["target"], dev);
  EXPECT_EQ(t["ok"], true) << t.dump(2);
  EXPECT_EQ(t["check_ok"], true) << t["findings"].dump(2);
  ASSERT_EQ(t["steps"].size(), 9u) << t["steps"].dump(2);
  const char* names[] = {"write", "identity", "partitions", "mount", "patch", "seed", "check", "sync", "unmount"};
  for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(t["steps"][i]["step"], names[i]);
  EXPECT_GT(t["seconds"].get<double>(), 0.0);
  EXPECT_EQ(t["identity"]["old_disk_id"], "0x4ec8ea53");
  const std::string new_id = t["identity"]["new_disk_id"];
  EXPECT_NE(new_id, "0x4ec8ea53");
  // The partition table holds the disk's new identifier.
  auto sf = run("partx -g -o UUID -n 2 " + dev);
  EXPECT_EQ(std::string(piprov::trim(sf.out)), new_id.substr(2) + "-02") << sf.err;
  // Patched: [pi4] kernel=vmlinux, vmlinux present.
  EXPECT_EQ(t["layout"], "ubuntu-uboot");
  EXPECT_EQ(t["patched"], true);
  fs::path boot = work / "boot";
  ASSERT_NO_FATAL_FAILURE(piprov::test::copy_fat_out(dev + "p1", boot));
  auto config = piprov::boot::ConfigTxt::parse(read_file(boot / "config.txt"));
  EXPECT_EQ(config.effective("kernel", piprov::boot::Board{"pi4"})->value, "vmlinux");
  EXPECT_GT(fs::file_size(boot / "vmlinux"), 20u << 20);
  // Both file systems are clean, and the root fs has the apt hook.
  auto fsck = run("e2fsck -fn " + dev + "p2 2>&1");
  EXPECT_EQ(fsck.exit_code, 0) << fsck.out;
  auto vfat = run("fsck.vfat -n " + dev + "p1 2>&1");
  EXPECT_EQ(vfat.exit_code, 0) << vfat.out;
  piprov::test::Mount root(dev + "p2", work / "root", "ext4", "ro");
  EXPECT_EQ(read_file(root.dir / piprov::boot::kHookConfRel),
            read_file(piprov::test::source_dir() / "apt-hooks/99-piprov-kernel"));
}

}  // namespace

TEST(ProvisionParallel, ThreeDisksInOneCommandEachChecked) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("e2fsck");
  PIPROV_REQUIRE_TOOL("fsck.vfat");
  TempDir d("piprov-par");
  if (auto why = piprov::test::make_test_image(d.path / "ubuntu.img", 64); !why.empty()) PIPROV_SKIP(why);
  std::vector<std::unique_ptr<piprov::test::LoopDevice>> disks;
  std::string devs;
  for (const char* name : {"a.img", "b.img", "c.img"}) {
    disks.push_back(std::make_unique<piprov::test::LoopDevice>(d.path / name, 1ull << 30));
    devs += " " + disks.back()->path;
  }
  auto p = run(piprov::test::piprov_bin() + " provision " + (d.path / "ubuntu.img.xz").string() + devs +
               " --yes --progress none --json");
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  auto j = nlohmann::json::parse(p.out);
  EXPECT_EQ(j["succeeded"], 3);
  EXPECT_EQ(j["failed"], 0);
  ASSERT_EQ(j["targets"].size(), 3u);

  std::set<std::string> ids;
  double sum = 0, longest = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(disks[i]->path);
    const auto& t = j["targets"][i];
    ids.insert(t["identity"]["new_disk_id"].get<std::string>());
    sum += t["seconds"].get<double>();
    longest = std::max(longest, t["seconds"].get<double>());
    TempDir work("piprov-par-disk");
    expect_disk_provisioned(t, disks[i]->path, work.path);
  }
  EXPECT_EQ(ids.size(), 3u) << "every disk gets its own identifier";
  // In parallel: all three took about as long as the slowest, not the sum of them.
  const double all = j["steps_seconds"].get<double>();
  EXPECT_GE(all, longest);
  EXPECT_LT(all, 0.8 * sum) << "steps_seconds " << all << ", per disk sum " << sum;
  std::string pattern = "^(";
  for (const auto& disk : disks) pattern += (pattern.size() > 2 ? "|" : "") + disk->path;
  EXPECT_EQ(run("grep -q -E '" + pattern + ")p' /proc/self/mounts").exit_code, 1) << "a mount was left behind";
}
