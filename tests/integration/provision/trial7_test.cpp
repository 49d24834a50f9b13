// Trial 7 finding 1: root= in the cmdline must name a partition of the disk the Pi boots, also
// where piprov has the disk or the image's partition table without --device: `boot check IMAGE`
// and `provision --dry-run` judge it by the image's own ids (its MBR disk identifier, each file
// system's LABEL and UUID), provision's check step by the written disk after its new disk
// identifier. Was: "boot check: OK" and "is ready ... boots from USB", exit 0, for
// root=PARTUUID=deadbeef-02 and root=LABEL=nosuch (a kernel with rootwait then waits forever).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>

#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

/// The rules of the findings of a `--json` check report.
std::vector<std::string> root_on_disk_rules(const nlohmann::json& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f["rule"].get<std::string>());
  return out;
}

/// `img` (a raspios test image) with cmdline.txt's root= set to `root`.
void root_on_disk_set_root(const fs::path& img, const fs::path& work, const std::string& root) {
  piprov::test::write_file(work / "cmdline.txt",
                           "console=serial0,115200 console=tty1 root=" + root + " rootfstype=ext4 rootwait\n");
  ASSERT_EQ(run("export MTOOLS_SKIP_CHECK=1; mcopy -o -i " + q(img.string() + "@@1M") + " " +
                q((work / "cmdline.txt").string()) + " ::cmdline.txt")
                .exit_code,
            0);
}

/// The root fs's /etc/fstab (ext4 at byte `offset` of `img`) set to `text` with debugfs: a converted
/// image's fstab names its new partitions, as its cmdline does (boot check judges both).
void root_on_disk_set_fstab(const fs::path& img, const fs::path& work, std::uint64_t offset, const std::string& text) {
  piprov::test::write_file(work / "fstab", text);
  const std::string at = q(img.string() + "?offset=" + std::to_string(offset));
  ASSERT_EQ(run("debugfs -w -R 'rm /etc/fstab' " + at).exit_code, 0);
  ASSERT_EQ(run("debugfs -w -R " + q("write " + (work / "fstab").string() + " /etc/fstab") + " " + at).exit_code, 0);
}

}  // namespace

TEST(Trial7RootOnDisk, BootCheckImageAndDryRunJudgeRootByTheImagesPartitions) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir d("piprov-t7-root-image");
  const fs::path stock = d.path / "raspios.img";
  if (auto why = piprov::test::make_test_image(stock, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice target(d.path / "target.disk", 400ull << 20);
  const std::string bin = piprov::test::piprov_bin();

  struct Case {
    std::string root;
    bool names_a_partition;
    bool case_only = false;  ///< names it only when case is ignored: root-id-case (the image loads initramfs8)
  };
  // make-test-image.sh's raspios: disk identifier 6c586e13, labels bootfs/rootfs, auto_initramfs=1
  // (initramfs-tools resolves root= with blkid -t, which compares exactly: trial 10 finding 6).
  for (const Case& c : {Case{"PARTUUID=deadbeef-02", false}, Case{"LABEL=nosuch", false},
                        Case{"UUID=0123abcd-0000-4000-8000-000000000000", false},
                        Case{"PARTUUID=6C586E13-02", true, true}, Case{"LABEL=rootfs", true}}) {
    SCOPED_TRACE(c.root);
    const fs::path img = d.path / "case.img";
    ASSERT_EQ(run("cp --sparse=always " + q(stock.string()) + " " + q(img.string())).exit_code, 0);
    ASSERT_NO_FATAL_FAILURE(root_on_disk_set_root(img, d.path, c.root));

    auto check = run(bin + " boot check --json --board pi4 " + q(img.string()));
    ASSERT_TRUE(check.exit_code == 0 || check.exit_code == 1) << check.err;
    const auto j = nlohmann::json::parse(check.out);
    const auto rules = root_on_disk_rules(j["findings"]);
    const bool flagged = std::find(rules.begin(), rules.end(), "root-not-on-device") != rules.end();
    EXPECT_EQ(flagged, !c.names_a_partition) << check.out;
    EXPECT_EQ(std::find(rules.begin(), rules.end(), "root-id-case") != rules.end(), c.case_only) << check.out;
    EXPECT_EQ(check.exit_code, c.names_a_partition && !c.case_only ? 0 : 1) << check.out;
    if (!c.names_a_partition) {
      for (const auto& f : j["findings"])
        if (f["rule"] == "root-not-on-device") {
          EXPECT_EQ(f["severity"], "error");
          EXPECT_NE(f["message"].get<std::string>().find("names no partition of " + img.string()), std::string::npos)
              << f["message"];
          EXPECT_NE(f["message"].get<std::string>().find("PARTUUID=6c586e13-02"), std::string::npos) << f["message"];
          EXPECT_NE(f["fix"].get<std::string>().find("set root=PARTUUID=6c586e13-02 (the root partition, " +
                                                     img.string() + " partition 2) in cmdline.txt"),
                    std::string::npos)
              << f["fix"];
        }
    }

    // The dry run judges the image as the real run would: exit 1, not "ready".
    auto dry = run("timeout 300 " + bin + " provision --dry-run --progress none " + q(img.string()) + " " +
                   target.path + " --board pi4");
    EXPECT_EQ(dry.exit_code, c.names_a_partition && !c.case_only ? 0 : 1) << dry.out << dry.err;
    EXPECT_EQ((dry.out + dry.err).find("root-not-on-device") != std::string::npos, !c.names_a_partition)
        << dry.out << dry.err;
  }
}

TEST(Trial7RootOnDisk, ProvisionIsNotReadyWhenRootNamesNoPartitionOfTheWrittenDisk) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir d("piprov-t7-root-provision");
  const fs::path img = d.path / "badroot.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  ASSERT_NO_FATAL_FAILURE(root_on_disk_set_root(img, d.path, "PARTUUID=deadbeef-02"));
  piprov::test::LoopDevice target(d.path / "target.disk", 400ull << 20);

  auto p = run("timeout 600 " + piprov::test::piprov_bin() + " provision --yes --progress none " + q(img.string()) +
               " " + target.path + " --board pi4 --json");
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;  // README: 1, the final boot check has findings
  const auto j = nlohmann::json::parse(p.out);
  ASSERT_EQ(j["targets"].size(), 1u);
  const auto& t = j["targets"][0];
  EXPECT_FALSE(t["check_ok"].get<bool>());
  const auto rules = root_on_disk_rules(t["findings"]);
  ASSERT_NE(std::find(rules.begin(), rules.end(), "root-not-on-device"), rules.end()) << t["findings"];
  // Judged after the new disk identifier: the fix names the disk's new PARTUUID, not the image's.
  const std::string new_id = run("blkid -p -s PTUUID -o value " + target.path).out.substr(0, 8);
  ASSERT_TRUE(std::regex_match(new_id, std::regex("[0-9a-f]{8}"))) << new_id;
  EXPECT_NE(new_id, "6c586e13");
  for (const auto& f : t["findings"]) {
    if (f["rule"] == "root-not-on-device") {
      EXPECT_NE(f["fix"].get<std::string>().find("set root=PARTUUID=" + new_id + "-02"), std::string::npos) << f["fix"];
    }
  }
  EXPECT_EQ(p.err.find("is ready"), std::string::npos) << p.err;
  EXPECT_EQ(p.out.find("is ready"), std::string::npos) << p.out;
}

// Trial 8 finding 2: on a GPT image, root= is judged by the partition GUIDs (UEFI 2.10 table 5.6,
// UniquePartitionGUID), as the real run judges the written disk: a root=PARTUUID= left from the MBR
// image is an error (was "boots from USB", exit 0, while the real provision exited 1).
TEST(Trial8RootOnDisk, AGptImagesRootIsJudgedByItsPartitionGuids) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("debugfs");
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("sfdisk");
  TempDir d("piprov-t8-gpt");
  const fs::path img = d.path / "gpt.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  // The same partitions as GPT entries with known GUIDs (1 MiB more for the backup table at the end).
  const auto layout = nlohmann::json::parse(run("sfdisk -J " + q(img.string())).out);
  const auto& parts = layout["partitiontable"]["partitions"];
  ASSERT_EQ(parts.size(), 2u);
  ASSERT_EQ(run("truncate -s +1M " + q(img.string())).exit_code, 0);
  const std::string root_guid = "5b1a5a4e-3c7d-4b0e-9f6a-0c2d4e6f8a02";
  const std::string script =
      "label: gpt\nunit: sectors\n\nstart=" + std::to_string(parts[0]["start"].get<std::uint64_t>()) +
      ", size=" + std::to_string(parts[0]["size"].get<std::uint64_t>()) +
      ", type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, uuid=5b1a5a4e-3c7d-4b0e-9f6a-0c2d4e6f8a01\nstart=" +
      std::to_string(parts[1]["start"].get<std::uint64_t>()) +
      ", size=" + std::to_string(parts[1]["size"].get<std::uint64_t>()) +
      ", type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=" + root_guid + "\n";
  piprov::test::write_file(d.path / "gpt.sfdisk", script);
  auto gpt = run("sfdisk -q --wipe never " + q(img.string()) + " < " + q((d.path / "gpt.sfdisk").string()));
  ASSERT_EQ(gpt.exit_code, 0) << gpt.err;
  ASSERT_NO_FATAL_FAILURE(root_on_disk_set_fstab(img, d.path, parts[1]["start"].get<std::uint64_t>() * 512,
                                                 "PARTUUID=5b1a5a4e-3c7d-4b0e-9f6a-0c2d4e6f8a01 /boot/firmware vfat "
                                                 "defaults 0 2\nPARTUUID=" +
                                                     root_guid + " / ext4 defaults,noatime 0 1\n"));
  piprov::test::LoopDevice target(d.path / "target.disk", 400ull << 20);
  const std::string bin = piprov::test::piprov_bin();
  // The upper-case GUID names the root only when case is ignored: with the image's initramfs8,
  // root-id-case (blkid and udev name GPT GUIDs in lower case; trial 10 finding 6).
  const std::vector<std::pair<std::string, bool>> cases = {{"PARTUUID=6c586e13-02", false},
                                                           {"PARTUUID=" + root_guid, true},
                                                           {"PARTUUID=5B1A5A4E-3C7D-4B0E-9F6A-0C2D4E6F8A02", true}};
  for (const auto& [root, on_disk] : cases) {
    SCOPED_TRACE(root);
    const bool case_only = root != "PARTUUID=" + root_guid && on_disk;
    const bool ok = on_disk && !case_only;
    ASSERT_NO_FATAL_FAILURE(root_on_disk_set_root(img, d.path, root));
    auto check = run(bin + " boot check --json --board pi4 " + q(img.string()));
    EXPECT_EQ(check.exit_code, ok ? 0 : 1) << check.out << check.err;
    const auto rules = root_on_disk_rules(nlohmann::json::parse(check.out)["findings"]);
    EXPECT_EQ(std::find(rules.begin(), rules.end(), "root-not-on-device") == rules.end(), on_disk) << check.out;
    EXPECT_EQ(std::find(rules.begin(), rules.end(), "root-id-case") != rules.end(), case_only) << check.out;
    if (case_only)
      EXPECT_NE(check.out.find("set root=PARTUUID=" + root_guid + " (as blkid prints it) in cmdline.txt"),
                std::string::npos)
          << check.out;
    if (!on_disk)
      EXPECT_NE(check.out.find("set root=PARTUUID=" + root_guid + " (the root partition, " + img.string() +
                               " partition 2) in cmdline.txt"),
                std::string::npos)
          << check.out;
    auto dry = run("timeout 300 " + bin + " provision --dry-run --progress none " + q(img.string()) + " " +
                   target.path + " --board pi4");
    EXPECT_EQ(dry.exit_code, ok ? 0 : 1) << dry.out << dry.err;
  }
}

// Trial 8 finding 1: an image whose root fs is on MBR logical partition 5 (p1 FAT, p2 extended, p5
// ext4: a NOOBS/PINN card's backup). boot check IMAGE and provision --dry-run read the EBR chain
// (Wikipedia "Extended boot record"): root=PARTUUID=DISKID-05 names the root (Linux's PARTUUID of
// partition 5); the extended container p2 is not a partition root= may name. Were: root-not-on-device
// listing p2, "the image has no ext2/3/4 partition", and the dry run's "unknown boot layout" (exit 2).
TEST(Trial8LogicalRoot, BootCheckImageAndDryRunFindTheRootOnLogicalPartition5) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("debugfs");
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("zstd");
  TempDir d("piprov-t8-logical");
  const fs::path stock = d.path / "raspios.img", img = d.path / "ext.img";
  if (auto why = piprov::test::make_test_image(stock, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  // make-test-image.sh's raspios: p1 at sector 2048, p2 (the root fs, 64 MiB) at 526336. Here: p2 the
  // extended partition from 526336, its EBR there, logical 5 one MiB on holding the same root fs.
  const auto parts = nlohmann::json::parse(run("sfdisk -J " + q(stock.string())).out)["partitiontable"]["partitions"];
  ASSERT_EQ(parts.size(), 2u);
  const std::uint64_t root_start = parts[1]["start"], root_sectors = parts[1]["size"];
  piprov::test::write_file(d.path / "ext.sfdisk",
                           fmt::format("label: dos\nlabel-id: 0x1234abcd\nunit: sectors\n\nstart={}, size={}, "
                                       "type=c, bootable\nstart={}, size={}, type=5\nstart={}, size={}, type=83\n",
                                       parts[0]["start"].get<std::uint64_t>(), parts[0]["size"].get<std::uint64_t>(),
                                       root_start, root_sectors + 2048, root_start + 2048, root_sectors));
  auto made = run("cp --sparse=always " + q(stock.string()) + " " + q(img.string()) + " && truncate -s +1M " +
                  q(img.string()) + " && sfdisk -q --wipe never " + q(img.string()) + " < " +
                  q((d.path / "ext.sfdisk").string()) + " && dd if=" + q(stock.string()) + " of=" + q(img.string()) +
                  " bs=1M iflag=skip_bytes,count_bytes oflag=seek_bytes conv=notrunc,sparse status=none skip=" +
                  std::to_string(root_start * 512) + " seek=" + std::to_string((root_start + 2048) * 512) +
                  " count=" + std::to_string(root_sectors * 512));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ASSERT_NE(run("sfdisk -d " + q(img.string())).out.find("ext.img5 : start=      528384"), std::string::npos);
  ASSERT_NO_FATAL_FAILURE(root_on_disk_set_fstab(
      img, d.path, (root_start + 2048) * 512,
      "PARTUUID=1234abcd-01 /boot/firmware vfat defaults 0 2\nPARTUUID=1234abcd-05 / ext4 defaults,noatime 0 1\n"));
  const std::string bin = piprov::test::piprov_bin();

  // The root named by partition 2 (the container): an error whose listing and fix give partition 5.
  ASSERT_NO_FATAL_FAILURE(root_on_disk_set_root(img, d.path, "PARTUUID=1234abcd-02"));
  auto wrong = run(bin + " boot check --json --board pi4 " + q(img.string()));
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out << wrong.err;
  const auto jw = nlohmann::json::parse(wrong.out);
  const auto wrong_rules = root_on_disk_rules(jw["findings"]);
  EXPECT_EQ(wrong_rules, std::vector<std::string>({"root-not-on-device", "kernel-gzip", "firmware"})) << wrong.out;
  for (const auto& f : jw["findings"])
    if (f["rule"] == "root-not-on-device") {
      const std::string m = f["message"];
      EXPECT_NE(m.find("(" + img.string() + " partition 1 LABEL=bootfs PARTUUID=1234abcd-01, " + img.string() +
                       " partition 5 LABEL=rootfs PARTUUID=1234abcd-05)"),
                std::string::npos)
          << m;
      EXPECT_EQ(m.find("partition 2"), std::string::npos) << m;
      EXPECT_EQ(f["fix"],
                "set root=PARTUUID=1234abcd-05 (the root partition, " + img.string() + " partition 5) in cmdline.txt");
    }

  // root=PARTUUID=1234abcd-05: the raspios verdict, on the raw image and on a multi-frame .zst (random access).
  ASSERT_NO_FATAL_FAILURE(root_on_disk_set_root(img, d.path, "PARTUUID=1234abcd-05"));
  const std::string zst = img.string() + ".zst";
  ASSERT_EQ(run("cd " + q(d.path.string()) + " && mkdir pieces && split -b 4M -d ext.img pieces/p. && " +
                "for f in pieces/p.*; do zstd -q -1 --rm $f -o $f.zst; done && cat pieces/p.*.zst > " + q(zst) +
                " && rm -r pieces")
                .exit_code,
            0);
  for (const std::string& image : {img.string(), zst}) {
    SCOPED_TRACE(image);
    auto check = run(bin + " boot check --json --board pi4 " + q(image));
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    const auto j = nlohmann::json::parse(check.out);
    EXPECT_EQ(root_on_disk_rules(j["findings"]), std::vector<std::string>({"kernel-gzip", "firmware"})) << check.out;
    EXPECT_TRUE(j["image"]["root_read"].get<bool>());
    EXPECT_TRUE(j["image"]["random_access"].get<bool>());
    EXPECT_EQ(j["layout"]["id"], "raspios") << j["layout"];
    EXPECT_TRUE(j["layout"]["usb_boot"].get<bool>()) << j["layout"];
  }

  // The image's cloud-init is read from partition 5 too: this root fs has none (was judged by this machine's schema).
  piprov::test::write_file(d.path / "user-data", "#cloud-config\nhostname: node1\n");
  auto seed =
      run(bin + " seed check --image " + q(img.string()) + " --user-data " + q((d.path / "user-data").string()));
  EXPECT_EQ(seed.exit_code, 2) << seed.out << seed.err;
  EXPECT_NE(seed.err.find("the image's root fs has no cloud-init (/etc/cloud missing)"), std::string::npos) << seed.err;

  // The dry run's verdict is the stock image's: nothing to patch, boots from USB, exit 0 (was exit 2).
  piprov::test::LoopDevice target(d.path / "target.disk", 400ull << 20);
  auto dry = run("timeout 300 " + bin + " provision --dry-run --progress none " + q(img.string()) + " " + target.path +
                 " --board pi4");
  EXPECT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  EXPECT_NE(dry.out.find("patch: nothing to do: Raspberry Pi OS (bookworm) boots from USB as shipped"),
            std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("boots from USB (kernel kernel8.img, initramfs initramfs8, cmdline cmdline.txt, "
                         "root=PARTUUID=1234abcd-05)"),
            std::string::npos)
      << dry.out;
}

// Finding 5: a raw image cut at 300 MB (partition 1 complete, partition 2 cut): `boot check IMAGE`
// and `seed check --image` say what write says, "ends at byte N ... download it again" (were "has
// no FAT partition ...: not a Raspberry Pi image" and "gives no cloud-init schema ... give an image
// piprov can read at random (.img, ...)").
TEST(Trial7CutImage, BootCheckAndSeedCheckSayTheImageIsCut) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-t7-cut");
  const fs::path img = d.path / "raspios.img", cut = d.path / "trunc.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  ASSERT_EQ(run("head -c 300000000 " + q(img.string()) + " > " + q(cut.string())).exit_code, 0);
  piprov::test::write_file(d.path / "user-data", "#cloud-config\nhostname: node1\n");
  const std::string cut_text =
      cut.string() +
      " ends at byte 300000000 (286.1 MiB), before its partition 2 ends (byte 336592896, "
      "321.0 MiB): an incomplete download or a cut copy; download it again (nothing was checked)";
  const std::string bin = piprov::test::piprov_bin();

  auto check = run(bin + " boot check --board pi4 " + q(cut.string()));
  EXPECT_EQ(check.exit_code, 2) << check.out << check.err;
  EXPECT_NE(check.err.find(cut_text), std::string::npos) << check.err;
  EXPECT_EQ(check.err.find("not a Raspberry Pi image"), std::string::npos) << check.err;

  auto seed =
      run(bin + " seed check --image " + q(cut.string()) + " --user-data " + q((d.path / "user-data").string()));
  EXPECT_EQ(seed.exit_code, 2) << seed.out << seed.err;
  EXPECT_NE(seed.err.find(cut_text), std::string::npos) << seed.err;
  EXPECT_EQ((seed.out + seed.err).find("read at random"), std::string::npos) << seed.out << seed.err;

  // write says the same of it, with its own outcome.
  piprov::test::LoopDevice target(d.path / "target.disk", 400ull << 20);
  auto write = run(bin + " write --yes --progress none " + q(cut.string()) + " " + target.path);
  EXPECT_EQ(write.exit_code, 2) << write.err;
  EXPECT_NE(write.err.find(cut_text.substr(0, cut_text.size() - std::string("checked)").size())), std::string::npos)
      << write.err;
}

// Trial 8 finding 5: root=/dev/mmcblk0p2 (the SD card's partition) in an image provisioned for a USB
// disk: `boot check IMAGE`, the dry run and the real run's check step all say root-not-on-device (an
// error, exit 1) with the root partition's PARTUUID (was a warning about probe order).
TEST(Trial8RootOnDisk, SdCardKernelNameIsNotOnTheUsbDisk) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir d("piprov-t8-mmcblk");
  const fs::path img = d.path / "mmcblk.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  ASSERT_NO_FATAL_FAILURE(root_on_disk_set_root(img, d.path, "/dev/mmcblk0p2"));
  piprov::test::LoopDevice target(d.path / "target.disk", 400ull << 20);
  const std::string bin = piprov::test::piprov_bin();
  auto root_finding = [](const nlohmann::json& findings) {
    for (const auto& f : findings)
      if (f["rule"] == "root-not-on-device") return f;
    return nlohmann::json();
  };

  auto check = run(bin + " boot check --json --board pi4 " + q(img.string()));
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  auto f = root_finding(nlohmann::json::parse(check.out)["findings"]);
  ASSERT_FALSE(f.is_null()) << check.out;
  EXPECT_EQ(f["severity"], "error");
  EXPECT_NE(f["message"].get<std::string>().find("not of a USB or NVMe disk written from " + img.string()),
            std::string::npos)
      << f["message"];
  EXPECT_EQ(f["fix"],
            "set root=PARTUUID=6c586e13-02 (the root partition, " + img.string() + " partition 2) in cmdline.txt");

  auto dry = run("timeout 300 " + bin + " provision --dry-run --progress none " + q(img.string()) + " " + target.path +
                 " --board pi4");
  EXPECT_EQ(dry.exit_code, 1) << dry.out << dry.err;
  EXPECT_NE((dry.out + dry.err).find("root-not-on-device"), std::string::npos) << dry.out << dry.err;

  auto p = run("timeout 600 " + bin + " provision --yes --progress none " + q(img.string()) + " " + target.path +
               " --board pi4 --json");
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;
  const auto j = nlohmann::json::parse(p.out);
  ASSERT_EQ(j["targets"].size(), 1u);
  f = root_finding(j["targets"][0]["findings"]);
  ASSERT_FALSE(f.is_null()) << j["targets"][0]["findings"];
  EXPECT_NE(f["message"].get<std::string>().find("not of " + target.path + " (loop)"), std::string::npos)
      << f["message"];
  // The written disk's new disk identifier, on its partition 2.
  const std::string new_id = run("blkid -p -s PTUUID -o value " + target.path).out.substr(0, 8);
  EXPECT_EQ(f["fix"], "set root=PARTUUID=" + new_id + "-02 (the root partition, " + target.path + "p2) in cmdline.txt");
}
