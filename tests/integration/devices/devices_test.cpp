// `piprov devices` lists a loop device with what a user needs to pick the
// right disk: size, transport, backing file, partitions with labels, mounts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

/// A 200 MiB loop device holding an MBR with a 64 MiB FAT32 "system-boot"
/// partition and an ext4 "writable" one, made with sfdisk/mkfs at test time.
struct PreparedLoop {
  TempDir tmp{"piprov-devices"};
  std::unique_ptr<LoopDevice> dev;
  PreparedLoop() {
    dev = std::make_unique<LoopDevice>(tmp.path / "disk.img", 200ull << 20);
    auto r = run("printf 'label: dos\\nstart=2048, size=131072, type=c\\nstart=133120, type=83\\n' | sfdisk -q " +
                 dev->path + " && partx -u " + dev->path + " 2>/dev/null; partx -a " + dev->path +
                 " 2>/dev/null; mkfs.vfat -F 32 -n system-boot " + dev->path +
                 "p1 >/dev/null && mke2fs -q -F -t ext4 -L writable " + dev->path + "p2");
    if (r.exit_code != 0) throw std::runtime_error("preparing the loop device failed: " + r.err);
  }
};

nlohmann::json find_disk(const nlohmann::json& all, const std::string& path) {
  for (const auto& d : all)
    if (d["path"] == path) return d;
  return nullptr;
}

TEST(DevicesOnLoop, JsonListsSizeTransportBackingFileAndPartitions) {
  PIPROV_REQUIRE_LOOP();
  PreparedLoop p;
  auto r = run(piprov_bin() + " devices --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto d = find_disk(nlohmann::json::parse(r.out), p.dev->path);
  ASSERT_FALSE(d.is_null()) << r.out;
  EXPECT_EQ(d["size_bytes"], 200ull << 20);
  EXPECT_EQ(d["transport"], "loop");
  EXPECT_EQ(d["backing_file"], (p.tmp.path / "disk.img").string());
  EXPECT_EQ(d["system_disk"], false);
  EXPECT_EQ(d["read_only"], false);
  ASSERT_EQ(d["partitions"].size(), 2u) << d.dump(2);
  EXPECT_EQ(d["partitions"][0]["path"], p.dev->path + "p1");
  EXPECT_EQ(d["partitions"][0]["number"], 1);
  EXPECT_EQ(d["partitions"][0]["start_bytes"], 2048ull * 512);
  EXPECT_EQ(d["partitions"][0]["size_bytes"], 131072ull * 512);
  EXPECT_EQ(d["partitions"][0]["label"], "system-boot");
  EXPECT_EQ(d["partitions"][0]["fstype"], "vfat");
  EXPECT_EQ(d["partitions"][1]["label"], "writable");
  EXPECT_EQ(d["partitions"][1]["fstype"], "ext4");
  EXPECT_EQ(d["mountpoints"].size(), 0u);
}

TEST(DevicesOnLoop, MountedPartitionIsShownInTableAndJson) {
  PIPROV_REQUIRE_LOOP();
  PreparedLoop p;
  auto mnt = p.tmp.path / "mnt";
  RunResult table, json;
  {
    Mount mounted(p.dev->path + "p2", mnt);
    table = run(piprov_bin() + " devices");
    json = run(piprov_bin() + " devices --json");
  }
  ASSERT_EQ(table.exit_code, 0) << table.err;
  std::string line;
  for (std::size_t pos = 0; pos < table.out.size();) {
    auto nl = table.out.find('\n', pos);
    std::string l = table.out.substr(pos, nl - pos);
    if (l.rfind(p.dev->path + " ", 0) == 0) line = l;
    pos = nl == std::string::npos ? table.out.size() : nl + 1;
  }
  EXPECT_NE(line.find("200.0 MiB loop      - "), std::string::npos) << table.out;  // a loop device has no model
  EXPECT_NE(line.find("mounted: " + p.dev->path + "p2 on " + mnt.string()), std::string::npos) << line;
  auto d = find_disk(nlohmann::json::parse(json.out), p.dev->path);
  ASSERT_FALSE(d.is_null());
  EXPECT_EQ(d["mountpoints"], nlohmann::json::array({p.dev->path + "p2 on " + mnt.string()}));
  EXPECT_EQ(d["partitions"][1]["mountpoints"], nlohmann::json::array({mnt.string()}));
  EXPECT_EQ(d["system_disk"], false);  // mounted somewhere harmless: not a system disk
}

TEST(DevicesOnLoop, ReadOnlyLoopIsMarked) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-devices");
  LoopDevice dev(tmp.path / "ro.img", 16ull << 20, /*read_only=*/true);
  auto r = run(piprov_bin() + " devices --json");
  ASSERT_EQ(r.exit_code, 0);
  auto d = find_disk(nlohmann::json::parse(r.out), dev.path);
  ASSERT_FALSE(d.is_null());
  EXPECT_EQ(d["read_only"], true);
}

}  // namespace
}  // namespace piprov::test
