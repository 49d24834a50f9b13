// clone copies the file system ids (LABEL=, UUID=) as they are and renews PARTUUIDs: root= and
// /etc/fstab entries that name a LABEL or UUID name the SOURCE's partitions too (raspberrypi/linux
// issue 5956): warnings root-duplicate and fstab-duplicate, on real loop devices.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "clone_fixture.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

// trial 9 finding 3: clone copies LABEL= and UUID= as they are, so a root= naming one is carried
// by the SOURCE too: warning root-duplicate against the SOURCE disk (raspberrypi/linux issue
// 5956), with the TARGET's root partition in the fix; PARTUUID=, which clone renews, is not.
TEST(Clone, RootByLabelOrUuidSharedWithTheSourceIsAWarning) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir tmp("piprov-clone-dup");
  const auto img = make_clone_image(tmp.path);
  const std::string fs_uuid =
      run("blkid -p -s UUID -o value " + q((tmp.path / "ext.img").string())).out;  // the root fs
  ASSERT_FALSE(fs_uuid.empty());
  write_file(tmp.path / "config.txt", "arm_64bit=1\n");
  auto dst = clone_target_loop(tmp.path / "dst", 96ull << 20);
  for (const std::string root : std::vector<std::string>{
           "LABEL=rootfs", "UUID=" + fs_uuid.substr(0, fs_uuid.size() - 1), std::string("PARTUUID=12345678-02")}) {
    SCOPED_TRACE(root);
    write_file(tmp.path / "cmdline.txt", "console=tty1 root=" + root + " rootwait\n");
    sh("MTOOLS_SKIP_CHECK=1 mcopy -o -i " + q(img.string() + "@@1M") + " " + q((tmp.path / "config.txt").string()) +
       " " + q((tmp.path / "cmdline.txt").string()) + " ::");
    LoopDevice src(img, 0);
    wait_for_partitions(src.path, 2);
    auto r = clone_run("--yes --json " + src.path + " " + dst->path);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the fixture's kernel8.img and dtb are not real: errors
    const auto j = nlohmann::json::parse(r.out);
    std::vector<nlohmann::json> dups;
    for (const auto& f : j["targets"][0]["boot_check"]["findings"])
      if (f["rule"] == "root-duplicate") dups.push_back(f);
    for (const auto& f : j["targets"][0]["boot_check"]["findings"])  // its /etc/fstab names PARTUUID=s
      EXPECT_NE(f["rule"], "fstab-duplicate") << j.dump(1);
    if (root.rfind("PARTUUID=", 0) == 0) {
      EXPECT_TRUE(dups.empty()) << j.dump(1);
      continue;
    }
    ASSERT_EQ(dups.size(), 1u) << j.dump(1);
    EXPECT_EQ(dups[0]["severity"], "warning");
    EXPECT_EQ(dups[0]["message"],
              "root=" + root + ": the SOURCE's " + src.path + "p2 (" + src.path +
                  ") also carries it, and clone copies it unchanged: with both disks attached to one node the "
                  "kernel may mount the SOURCE's root instead of " +
                  dst->path + "'s")
        << j.dump(1);
    EXPECT_EQ(dups[0]["fix"].get<std::string>().rfind(
                  "attach only one of them to a node, or give the TARGET's root file system a new " +
                      std::string(root[0] == 'L' ? "label (e2label " : "UUID (tune2fs -U random ") + dst->path + "p2",
                  0),
              0u)
        << dups[0]["fix"];
  }
}

/// make_clone_image's image in `dir` made like another distribution's: its FAT labelled `boot_label`
/// (fatlabel, which keeps lower case as mkfs.vfat -n does), its ext4 `root_label` (e2label) holding
/// /etc/fstab `fstab` (debugfs), cmdline.txt `cmdline`.
void restyle_clone_image(const std::filesystem::path& dir, const std::string& boot_label, const std::string& root_label,
                         const std::string& fstab, const std::string& cmdline) {
  write_file(dir / "fstab.new", fstab);
  write_file(dir / "config.txt", "arm_64bit=1\n");
  write_file(dir / "cmdline.txt", cmdline);
  write_file(dir / "debugfs.cmd", "cd /etc\nrm fstab\nwrite " + (dir / "fstab.new").string() + " fstab\n");
  sh("cd " + q(dir.string()) + " && e2label ext.img " + q(root_label) +
     " && debugfs -w -f debugfs.cmd ext.img >/dev/null 2>&1 && dd if=ext.img of=src.img bs=512 seek=34816 "
     "conv=notrunc status=none && fatlabel fat.img " +
     q(boot_label) +
     " 2>/dev/null && MTOOLS_SKIP_CHECK=1 mcopy -o -i fat.img config.txt cmdline.txt :: && dd if=fat.img of=src.img "
     "bs=512 seek=2048 conv=notrunc status=none");
}

/// The findings of `rule` in the first TARGET's boot check of clone's --json.
std::vector<nlohmann::json> clone_findings(const nlohmann::json& j, const std::string& rule) {
  std::vector<nlohmann::json> out;
  for (const auto& f : j["targets"][0]["boot_check"]["findings"])
    if (f["rule"] == rule) out.push_back(f);
  return out;
}

std::string partuuid_of(const std::string& partition) {
  auto r = run("blkid -p -s PART_ENTRY_UUID -o value " + partition);
  return r.out.substr(0, r.out.find('\n'));
}

// trial 10 finding 3: clone copies the file system ids /etc/fstab names by LABEL= or UUID= (or
// /dev/disk/by-label/, by-uuid/) too: with the SOURCE left in the node, /boot/firmware may be mounted
// from the SOURCE. Each such entry is warning fstab-duplicate, its fix the TARGET partition's new
// PARTUUID; `/` by root='s own id is root-duplicate's, whose fix then names the other entries.
// PARTUUID= entries, which clone renews, and noauto ones are not warned.
TEST(Clone, FstabEntriesByLabelOrUuidSharedWithTheSourceAreWarnings) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("fatlabel");
  PIPROV_REQUIRE_TOOL("debugfs");
  PIPROV_REQUIRE_TOOL("e2label");
  auto dup_message = [](const std::string& src, const std::string& line, const std::string& spec,
                        const std::string& file, const std::string& srcp, const std::string& link,
                        const std::string& effect) {
    return "/etc/fstab line " + line + ": " + spec + " (mounted on " + file + "): the SOURCE's " + srcp + " (" + src +
           ") also carries it, and clone copies it unchanged: with both disks attached to one node, " + link +
           " may point to the SOURCE's partition: " + effect;
  };
  auto dup_fix = [](const std::string& line, const std::string& partuuid, const std::string& dstp) {
    return "attach only one of them to a node, or set the first field of /etc/fstab line " + line +
           " to PARTUUID=" + partuuid + " (the TARGET's " + dstp +
           "): clone gave the TARGET a new disk identifier, so no other disk carries it";
  };
  const std::string stale =
      "systemd then mounts it on /boot/firmware, and kernel and firmware updates go to the "
      "SOURCE while the TARGET boots its own, stale files";
  {
    SCOPED_TRACE("Ubuntu: root=LABEL=writable, LABEL=system-boot on /boot/firmware");
    TempDir tmp("piprov-clone-fstab");
    const auto img = make_clone_image(tmp.path);
    restyle_clone_image(tmp.path, "system-boot", "writable",
                        "LABEL=writable\t/\text4\tdiscard,errors=remount-ro\t0 1\n"
                        "LABEL=system-boot       /boot/firmware  vfat    defaults        0       1\n",
                        "console=tty1 root=LABEL=writable rootwait\n");
    LoopDevice src(img, 0);
    wait_for_partitions(src.path, 2);
    auto dst = clone_target_loop(tmp.path / "dst", 96ull << 20);
    auto r = clone_run("--yes --json " + src.path + " " + dst->path);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the fixture's kernel8.img and dtb are not real: errors
    const auto j = nlohmann::json::parse(r.out);
    wait_for_partitions(dst->path, 2);
    const std::string p1 = partuuid_of(dst->path + "p1"), p2 = partuuid_of(dst->path + "p2");
    ASSERT_EQ(p1.size(), 11u) << p1;
    EXPECT_NE(p1.substr(0, 8), "12345678");  // the new disk identifier
    const auto fstab = clone_findings(j, "fstab-duplicate");
    ASSERT_EQ(fstab.size(), 1u) << j.dump(1);
    EXPECT_EQ(fstab[0]["severity"], "warning");
    EXPECT_EQ(fstab[0]["line"], 2);
    EXPECT_EQ(fstab[0]["message"], dup_message(src.path, "2", "LABEL=system-boot", "/boot/firmware", src.path + "p1",
                                               "/dev/disk/by-label/system-boot", stale));
    EXPECT_EQ(fstab[0]["fix"], dup_fix("2", p1, dst->path + "p1"));
    const auto root = clone_findings(j, "root-duplicate");
    ASSERT_EQ(root.size(), 1u) << j.dump(1);
    EXPECT_EQ(root[0]["fix"],
              "attach only one of them to a node, or give the TARGET's root file system a new label (e2label " +
                  dst->path + "p2 NEWNAME) and set root=LABEL=NEWNAME (and / in /etc/fstab), or use root=PARTUUID=" +
                  p2 + " (" + dst->path +
                  "p2) (and for / in /etc/fstab), which clone renewed; /etc/fstab names other file systems both "
                  "disks carry: set /etc/fstab line 2 (LABEL=system-boot on /boot/firmware) to PARTUUID=" +
                  p1 + " (the TARGET's " + dst->path + "p1) (fstab-duplicate)");
  }
  {
    SCOPED_TRACE("Raspberry Pi OS: root=PARTUUID=, UUID= in /etc/fstab");
    TempDir tmp("piprov-clone-fstab");
    const auto img = make_clone_image(tmp.path);
    auto uuid_of = [&](const std::string& file) {
      auto out = run("blkid -p -s UUID -o value " + q((tmp.path / file).string())).out;
      return out.substr(0, out.find('\n'));
    };
    const std::string fat_uuid = uuid_of("fat.img"), ext_uuid = uuid_of("ext.img");
    ASSERT_EQ(fat_uuid.size(), 9u) << fat_uuid;  // "269D-7B96"
    restyle_clone_image(tmp.path, "bootfs", "rootfs",
                        "proc /proc proc defaults 0 0\n"
                        "UUID=" +
                            fat_uuid +
                            "  /boot/firmware  vfat    defaults          0       2\n"
                            "UUID=" +
                            ext_uuid +
                            "  /               ext4    defaults,noatime  0       1\n"
                            "PARTUUID=12345678-01  /mnt/p  vfat  defaults,nofail  0  2\n"
                            "/dev/disk/by-label/bootfs  /mnt/l  vfat  defaults,nofail  0  2\n"
                            "LABEL=bootfs  /mnt/n  vfat  noauto  0  0\n",
                        "console=tty1 root=PARTUUID=12345678-02 rootfstype=ext4 rootwait\n");
    LoopDevice src(img, 0);
    wait_for_partitions(src.path, 2);
    auto dst = clone_target_loop(tmp.path / "dst", 96ull << 20);
    auto r = clone_run("--yes --json " + src.path + " " + dst->path);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const auto j = nlohmann::json::parse(r.out);
    wait_for_partitions(dst->path, 2);
    const std::string p1 = partuuid_of(dst->path + "p1"), p2 = partuuid_of(dst->path + "p2");
    ASSERT_EQ(p2.size(), 11u) << p2;
    EXPECT_TRUE(clone_findings(j, "root-duplicate").empty()) << j.dump(1);
    const auto fstab = clone_findings(j, "fstab-duplicate");
    ASSERT_EQ(fstab.size(), 3u) << j.dump(1);
    EXPECT_EQ(fstab[0]["message"], dup_message(src.path, "2", "UUID=" + fat_uuid, "/boot/firmware", src.path + "p1",
                                               "/dev/disk/by-uuid/" + fat_uuid, stale));
    EXPECT_EQ(fstab[0]["fix"], dup_fix("2", p1, dst->path + "p1"));
    EXPECT_EQ(fstab[1]["message"],
              dup_message(src.path, "3", "UUID=" + ext_uuid, "/", src.path + "p2", "/dev/disk/by-uuid/" + ext_uuid,
                          "what finds / by /etc/fstab (its file system check, mount -o remount) may then take it "
                          "instead of the TARGET's " +
                              dst->path + "p2"));
    EXPECT_EQ(fstab[1]["fix"], dup_fix("3", p2, dst->path + "p2"));
    EXPECT_EQ(
        fstab[2]["message"],
        dup_message(src.path, "5", "/dev/disk/by-label/bootfs", "/mnt/l", src.path + "p1", "/dev/disk/by-label/bootfs",
                    "systemd then mounts it on /mnt/l instead of the TARGET's " + dst->path + "p1"));
    EXPECT_EQ(fstab[2]["fix"], dup_fix("5", p1, dst->path + "p1"));
  }
}

}  // namespace
}  // namespace piprov::test
