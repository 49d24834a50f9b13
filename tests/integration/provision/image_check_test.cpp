// `piprov boot check IMAGE` (issue 27 item 3): the .img.xz of
// scripts/make-test-image.sh's Ubuntu 20.04, 24.04 and 26.04 A/B layouts is
// checked through the image reader and gives the layout and findings of
// `boot check` on a disk written from it (a loop device; its boot partition
// copied out with mtools, its root fs mounted read-only); the image is not changed.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

/// What must be the same on the image and on the disk: each finding's rule, severity, line and key.
std::vector<std::string> image_check_findings(const nlohmann::json& j) {
  std::vector<std::string> out;
  for (const auto& f : j["findings"])
    out.push_back(f["rule"].get<std::string>() + " " + f["severity"].get<std::string>() + " " + f["line"].dump() + " " +
                  f["key"].dump());
  return out;
}

}  // namespace

TEST(BootCheckImage, GivesTheLayoutAndFindingsOfADiskWrittenFromIt) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  for (const char* layout : {"focal", "noble", "resolute"}) {
    SCOPED_TRACE(layout);
    TempDir d("piprov-image-check");
    const fs::path img = d.path / "image.img";
    if (auto why = piprov::test::make_test_image(img, 64, layout); !why.empty()) PIPROV_SKIP(why);
    const std::string xz = img.string() + ".xz";
    const std::string sum_before = run("sha256sum < " + q(xz)).out;

    auto on_image = run(piprov::test::piprov_bin() + " boot check --json " + q(xz));
    ASSERT_TRUE(on_image.exit_code == 0 || on_image.exit_code == 1) << on_image.err;
    const auto ji = nlohmann::json::parse(on_image.out);
    EXPECT_EQ(run("sha256sum < " + q(xz)).out, sum_before) << "boot check IMAGE writes nothing";

    // The disk written from it: the image's decoded bytes (the .img the .xz was made from) on a loop device.
    piprov::test::LoopDevice disk(img, fs::file_size(img), true);
    // make-test-image.sh's layout: p1 at sector 2048, p2 at 526336 (read by offset: no wait for udev's nodes).
    piprov::test::Mount root(disk.path, d.path / "root", "ext4", "ro,offset=" + std::to_string(526336ull * 512));
    ASSERT_NO_FATAL_FAILURE(piprov::test::copy_fat_out(disk.path + "@@1M", d.path / "boot"));
    auto on_disk = run(piprov::test::piprov_bin() + " boot check --json " + q((d.path / "boot").string()) + " --root " +
                       q(root.dir.string()));
    ASSERT_TRUE(on_disk.exit_code == 0 || on_disk.exit_code == 1) << on_disk.err;
    const auto jd = nlohmann::json::parse(on_disk.out);

    EXPECT_EQ(on_image.exit_code, on_disk.exit_code);
    EXPECT_EQ(ji["layout"], jd["layout"]);
    EXPECT_EQ(image_check_findings(ji), image_check_findings(jd));
    EXPECT_EQ(ji["summary"], jd["summary"]);
    EXPECT_FALSE(image_check_findings(ji).empty());
    // What the reader decoded: the boot partition's files and the root files read, not the free space.
    const auto& info = ji["image"];
    EXPECT_EQ(info["format"], "xz");
    EXPECT_TRUE(info["random_access"].get<bool>());
    EXPECT_TRUE(info["root_read"].get<bool>());
    EXPECT_EQ(info["boot_partition"], 1);
    EXPECT_GT(info["blocks_decoded"].get<std::uint64_t>(), 0u);
    EXPECT_LT(info["blocks_decoded"].get<std::uint64_t>(), info["blocks_total"].get<std::uint64_t>());
    // The 256 MiB boot partition holds about 25 MiB of files: its free clusters are not decoded.
    EXPECT_LT(info["bytes_decoded"].get<std::uint64_t>(), 128ull << 20);
  }
}

// The text report of a raw image: paths inside the image's root fs after a colon ("IMAGE root fs:
// /etc/apt/...", was "IMAGE root fs/etc/apt/..."), and "read N MiB" (was "0 of 0 blocks decoded").
TEST(BootCheckImage, RawImageTextNamesPathsAndWhatWasRead) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir d("piprov-image-check-raw");
  const fs::path img = d.path / "focal.img";
  if (auto why = piprov::test::make_test_image(img, 64, "focal"); !why.empty()) PIPROV_SKIP(why);
  auto r = run(piprov::test::piprov_bin() + " boot check " + q(img.string()));
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("hook-missing: the apt hook " + img.string() + " root fs: /etc/apt/apt.conf.d/"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find(" root fs/"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("blocks decoded"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("read from " + img.string() + " (raw): partition 1 and the root fs; read "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" MiB\n"), std::string::npos) << r.out;
}

TEST(BootCheckImage, RefusesRootAndDeviceAndAnImageWithoutAFatPartition) {
  TempDir d("piprov-image-check-bad");
  piprov::test::write_file(d.path / "zeros.img", std::string(1 << 20, '\0'));
  auto none = run(piprov::test::piprov_bin() + " boot check " + q((d.path / "zeros.img").string()));
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("has no FAT partition (no partition table"), std::string::npos) << none.err;
  auto root = run(piprov::test::piprov_bin() + " boot check " + q((d.path / "zeros.img").string()) + " --root /");
  EXPECT_EQ(root.exit_code, 2) << root.err;
  EXPECT_NE(root.err.find("--root is for a mounted BOOT_DIR"), std::string::npos) << root.err;
}

// Trial 7, finding 3: on an image with a partial new/ and no autoboot.txt, the fixes were "rm -r
// IMAGE partition 1: /new/" (pasted into a shell, it deletes IMAGE) and "write IMAGE partition 1:
// /autoboot.txt". boot check IMAGE and provision --dry-run name the written disk's boot partition.
TEST(BootCheckImage, FixesNameTheWrittenDiskNeverACommandOnTheImage) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir d("piprov-image-check-fix");
  const fs::path img = d.path / "r1.img";
  if (auto why = piprov::test::make_test_image(img, 64, "resolute"); !why.empty()) PIPROV_SKIP(why);
  piprov::test::write_file(d.path / "vmlinuz", "partial");
  const std::string fat = q(img.string() + "@@1M");
  ASSERT_EQ(run("export MTOOLS_SKIP_CHECK=1; mmd -i " + fat + " ::new && mcopy -i " + fat + " " +
                q((d.path / "vmlinuz").string()) + " ::new/vmlinuz && mdel -i " + fat + " ::autoboot.txt")
                .exit_code,
            0);
  const std::string sum = run("sha256sum < " + q(img.string())).out;
  const std::string written = "on the boot partition of a disk written from " + img.string();
  auto check = run(piprov::test::piprov_bin() + " boot check --json " + q(img.string()) + " --board pi4");
  ASSERT_EQ(check.exit_code, 1) << check.out << check.err;
  std::map<std::string, std::string> fixes;
  const auto checked = nlohmann::json::parse(check.out);
  for (const auto& f : checked["findings"]) fixes[f["rule"].get<std::string>()] = f["fix"].get<std::string>();
  EXPECT_EQ(
      fixes["ab-new-leftover"],
      "remove new/ " + written + " (on the Pi: rm -r /boot/firmware/new/); the next kernel update writes it again");
  EXPECT_EQ(fixes["ab-no-autoboot"],
            "write autoboot.txt " + written + " with the lines [all] and tryboot_a_b=1 (as Ubuntu ships it)");
  for (const auto& [rule, fix] : fixes) EXPECT_EQ(fix.find(img.string() + " partition"), std::string::npos) << fix;

  piprov::test::LoopDevice a(d.path / "a.disk", 400ull << 20);
  auto dry = run("timeout 300 " + piprov::test::piprov_bin() + " provision --dry-run " + q(img.string()) + " " +
                 a.path + " --board pi4");
  EXPECT_NE(dry.out.find("remove new/ " + written + " (on the Pi: rm -r /boot/firmware/new/)"), std::string::npos)
      << dry.out << dry.err;
  EXPECT_EQ(dry.out.find("rm -r " + img.string()), std::string::npos) << dry.out;
  EXPECT_EQ(run("sha256sum < " + q(img.string())).out, sum);  // neither command changed the image
}

// provision --dry-run: the whole plan of each disk, no byte of any disk changed, the real run's exit code and checks.
TEST(ProvisionDryRun, PrintsEachDisksPlanTouchesNoDiskAndExitsAsTheRealRun) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_SHARED("cloud-init/09-user-data-rpi-module-cloud-init-25.2", user_data);
  TempDir d("piprov-dry-run");
  const fs::path img = d.path / "image.img", img241 = d.path / "image241.img";
  if (auto why = piprov::test::make_test_image(img, 64, "noble", "25.2"); !why.empty()) PIPROV_SKIP(why);
  if (auto why = piprov::test::make_test_image(img241, 64, "noble", "24.1"); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice a(d.path / "a.disk", 400ull << 20), b(d.path / "b.disk", 400ull << 20);
  for (const auto* disk : {&a, &b})
    ASSERT_EQ(run("yes piprov-untouched | head -c 4194304 | dd of=" + q(disk->path) + " bs=1M conv=fsync status=none")
                  .exit_code,
              0);
  ASSERT_EQ(run("cp --sparse=always " + q((d.path / "a.disk").string()) + " " + q((d.path / "a.before").string()) +
                " && cp --sparse=always " + q((d.path / "b.disk").string()) + " " + q((d.path / "b.before").string()))
                .exit_code,
            0);
  const std::string provision = "timeout 600 " + piprov::test::piprov_bin() + " provision --yes --progress none ";
  const std::string options =
      " " + a.path + " " + b.path + " --hostname n{1..2} --user-data " + q(user_data.string()) + " --json";

  auto refused = run(provision + "--dry-run " + q(img241.string() + ".xz") + options);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("cloud-init 24.1 schema, read from the image"), std::string::npos) << refused.err;

  auto dry = run(provision + "--dry-run " + q(img.string() + ".xz") + options);
  ASSERT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  const auto plan = nlohmann::json::parse(dry.out);
  EXPECT_EQ(plan["schema"], "piprov.provision.dry-run/1");
  ASSERT_EQ(plan["targets"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& t = plan["targets"][i];
    EXPECT_EQ(t["target"], i == 0 ? a.path : b.path);
    EXPECT_NE(t["disk_id"].get<std::string>().find("MBR disk identifier 4ec8ea53 -> a new random one"),
              std::string::npos);
    const std::string ud = t["seed_files"]["user-data"];
    EXPECT_NE(ud.find("rpi:"), std::string::npos) << ud;
    EXPECT_NE(ud.find("hostname: \"n" + std::to_string(i + 1) + "\""), std::string::npos) << ud;
    EXPECT_NE(t["seed_files"]["meta-data"].get<std::string>().find("local-hostname: \"n" + std::to_string(i + 1)),
              std::string::npos);
  }
  EXPECT_EQ(plan["patch"]["summary"], "nothing to do: Ubuntu 24.04 LTS boots from USB as shipped");
  EXPECT_EQ(plan["exit_code"], 0);
  EXPECT_GT(plan["decoded"]["blocks_decoded"].get<std::uint64_t>(), 0u);
  for (const char* disk : {"a", "b"})
    EXPECT_EQ(run("cmp " + q((d.path / (std::string(disk) + ".disk")).string()) + " " +
                  q((d.path / (std::string(disk) + ".before")).string()))
                  .exit_code,
              0)
        << disk << ": the dry run changed the disk";

  auto real = run(provision + q(img.string() + ".xz") + options);
  EXPECT_EQ(real.exit_code, dry.exit_code) << real.err;
  const auto done = nlohmann::json::parse(real.out);
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_EQ(image_check_findings(done["targets"][i]), image_check_findings(plan["targets"][i]["check"])) << i;
}

// An error about the image's files in a dry run names them in IMAGE, not in the temporary copy
// the dry run made (was "/tmp/piprov-image-XXXX/boot: unknown boot layout ...").
TEST(ProvisionDryRun, AnErrorNamesTheImageNotTheTemporaryCopy) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir d("piprov-dry-run-error");
  const fs::path img = d.path / "image.img";
  if (auto why = piprov::test::make_test_image(img, 64, "noble"); !why.empty()) PIPROV_SKIP(why);
  // A layout boot patch refuses: an unknown kernel name and no Ubuntu vmlinuz.
  piprov::test::write_file(d.path / "config.txt", "[all]\narm_64bit=1\nkernel=Image\n");
  const std::string fat = q(img.string() + "@@1M");
  ASSERT_EQ(run("export MTOOLS_SKIP_CHECK=1; mcopy -o -i " + fat + " " + q((d.path / "config.txt").string()) +
                " ::config.txt && mdel -i " + fat + " ::vmlinuz")
                .exit_code,
            0);
  piprov::test::LoopDevice a(d.path / "a.disk", 400ull << 20);
  auto r = run("timeout 300 " + piprov::test::piprov_bin() + " provision --dry-run " + q(img.string()) + " " + a.path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(img.string() + " partition 1: unknown boot layout"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("piprov-image"), std::string::npos) << r.err;  // make_temp_dir("image")'s name
  // The real run (a raw image, read at random) refuses it the same way before the first byte, for
  // the --board given too (issue 29: it wrote the whole disk, then refused at its patch step).
  for (const char* board : {"", " --board pi5"}) {
    auto real = run("timeout 300 " + piprov::test::piprov_bin() + " provision --yes --progress none " +
                    q(img.string()) + " " + a.path + board);
    EXPECT_EQ(real.exit_code, 2) << board << real.out << real.err;
    EXPECT_NE(real.err.find(img.string() + " partition 1: unknown boot layout"), std::string::npos) << real.err;
    EXPECT_NE(real.err.find("; nothing was written\n"), std::string::npos) << real.err;
    EXPECT_EQ(real.err.find("provision failed at step"), std::string::npos) << real.err;
    EXPECT_EQ(real.out, "") << board;
    EXPECT_EQ(run("cmp -s -n 1048576 " + a.path + " /dev/zero").exit_code, 0) << board << ": the disk was written";
  }
}

// --wifi-country without --wifi-ssid: the real run's seed step sets cfg80211.ieee80211_regdom in
// the cmdline (Wi-Fi unblocked for the country, set up later); the dry run shows it too (it said
// nothing about it: the country looked dropped).
TEST(ProvisionDryRun, WifiCountryWithoutSsidGoesIntoTheCmdline) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-dry-run-regdom");
  const fs::path img = d.path / "image.img";
  if (auto why = piprov::test::make_test_image(img, 64, "noble", "24.1"); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice a(d.path / "a.disk", 400ull << 20);
  auto r = run("timeout 300 " + piprov::test::piprov_bin() + " provision --dry-run --json " + q(img.string()) + " " +
               a.path + " --wifi-country gb");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto plan = nlohmann::json::parse(r.out);
  const auto& t = plan["targets"][0];
  EXPECT_EQ(t["wifi_country"], "GB");
  EXPECT_EQ(t["regdom_set"], nlohmann::json::array({"cmdline.txt"}));
  EXPECT_NE(t["check"]["layout"]["cmdline_args"].get<std::string>().find(" cfg80211.ieee80211_regdom=GB"),
            std::string::npos)
      << t.dump();
  auto text =
      run(piprov::test::piprov_bin() + " provision --dry-run " + q(img.string()) + " " + a.path + " --wifi-country GB");
  EXPECT_NE(text.out.find("  wifi country: cfg80211.ieee80211_regdom=GB in cmdline.txt\n"), std::string::npos)
      << text.out;
}

// Trial 3 finding 12: make-test-image.sh --cloud-init VER adds cloud-init to any layout, as its
// header says (raspios and focal had no /etc/cloud: seed check --image said "no cloud-init", exit 2).
TEST(SeedCheckImage, TestImageWithCloudInitOnEveryLayoutRunsCloudInit) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-ci-layouts");
  piprov::test::write_file(d.path / "user-data", "#cloud-config\nhostname: n1\n");
  for (const char* layout : {"raspios", "focal"}) {
    const fs::path img = d.path / (std::string(layout) + ".img");
    if (auto why = piprov::test::make_test_image(img, 64, layout, "24.1"); !why.empty()) PIPROV_SKIP(why);
    auto r = run(piprov::test::piprov_bin() + " seed check --user-data " + q((d.path / "user-data").string()) +
                 " --image " + q(img.string()));
    EXPECT_EQ(r.exit_code, 0) << layout << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("checked with cloud-init 24.1 schema, read from the image"), std::string::npos)
        << layout << ": " << r.out;
  }
}

// Trial 6 finding 9: Ubuntu 20.04's U-Boot boot partition on a root fs whose os-release is Debian
// 11's (set with debugfs in the test image) is not the ubuntu-uboot layout: boot check IMAGE names
// U-Boot and the distribution with no Ubuntu or provision advice, and provision --dry-run refuses
// it in one line, exit 2 (was patched as Ubuntu 20.04 with Ubuntu's apt hook installed). The real
// run of the raw image refuses it the same way before the write (issue 29: it wrote the whole disk
// first); a gzip one is written, then refused at the patch step.
TEST(BootCheckImage, UbootOnADebianRootIsRefusedNotPatchedAsUbuntu) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("debugfs");
  TempDir d("piprov-uboot-debian");
  const fs::path img = d.path / "deb.img", root = d.path / "root.ext4", osr = d.path / "os-release";
  if (auto why = piprov::test::make_test_image(img, 64, "focal"); !why.empty()) PIPROV_SKIP(why);
  // make-test-image.sh's layout: the 64 MiB root fs at sector 526336.
  const std::string at = " bs=512 skip=526336 count=131072";
  ASSERT_EQ(run("dd if=" + q(img.string()) + " of=" + q(root.string()) + at + " status=none").exit_code, 0);
  piprov::test::write_file(osr,
                           "PRETTY_NAME=\"Debian GNU/Linux 11 (bullseye)\"\nNAME=\"Debian GNU/Linux\"\n"
                           "VERSION_ID=\"11\"\nVERSION_CODENAME=bullseye\nID=debian\n");
  ASSERT_EQ(run("debugfs -w -R 'rm /etc/os-release' " + q(root.string()) + " 2>&1").exit_code, 0);
  ASSERT_EQ(run("debugfs -w -R 'write " + osr.string() + " /etc/os-release' " + q(root.string()) + " 2>&1").exit_code,
            0);
  ASSERT_NE(run("debugfs -R 'cat /etc/os-release' " + q(root.string()) + " 2>/dev/null").out.find("ID=debian"),
            std::string::npos);
  ASSERT_EQ(run("dd if=" + q(root.string()) + " of=" + q(img.string()) + " bs=512 seek=526336 conv=notrunc status=none")
                .exit_code,
            0);

  auto r = run(piprov::test::piprov_bin() + " boot check " + q(img.string()) + " --board pi4");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("layout unknown (Debian GNU/Linux 11 (bullseye)) on a Raspberry Pi 4B: piprov cannot tell", 0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("kernel=uboot_rpi_4.bin (config.txt line 14) (U-Boot by its content)"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("provision"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Ubuntu"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("apt"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(run(piprov::test::piprov_bin() + " boot check --json " + q(img.string())).out);
  EXPECT_EQ(j["layout"]["id"], "unknown") << j["layout"].dump();

  piprov::test::LoopDevice disk(d.path / "disk", 400ull << 20);
  auto p = run(piprov::test::piprov_bin() + " provision --dry-run " + q(img.string()) + " " + disk.path);
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_EQ(p.err,
            "piprov: error: " + img.string() +
                " partition 1: unknown boot layout (config.txt [pi4] kernel=uboot_rpi_4.bin; os-release: Debian "
                "GNU/Linux 11 (bullseye); U-Boot on a root fs that is not Ubuntu's (os-release ID=debian): not Ubuntu "
                "20.04's layout); piprov patches only Ubuntu 20.04's U-Boot layout; nothing was changed\n");
  // The real run of the raw image (read at random) refuses before the write, as the dry run does:
  // the disk's first MiB keeps the marker written on it (the image was written, then refused).
  const std::string marker = std::string(4096, 'M');
  piprov::test::write_file(d.path / "marker", marker);
  ASSERT_EQ(run("dd if=" + q((d.path / "marker").string()) + " of=" + disk.path + " conv=notrunc,fsync status=none")
                .exit_code,
            0);
  auto real = run(piprov::test::piprov_bin() + " provision --yes " + q(img.string()) + " " + disk.path);
  EXPECT_EQ(real.exit_code, 2) << real.out << real.err;
  std::string refusal = p.err;
  refusal.replace(refusal.rfind("nothing was changed"), 19, "nothing was written");
  EXPECT_EQ(real.err, refusal);
  EXPECT_EQ(real.out.find("[1/9] write"), std::string::npos) << real.out;
  EXPECT_EQ(run("head -c 4096 " + disk.path).out, marker) << "the disk was written";
  EXPECT_EQ(run("cmp -s -n 1044480 -i 4096 " + disk.path + " /dev/zero").exit_code, 0) << "the disk was written";
  // A gzip image (read only from its start: its root fs lies behind the boot partition) is
  // written, then its patch step refuses (exit 2, docs/provision.md) without suggesting boot
  // patch by hand, which would refuse it again, and installs no apt hook.
  ASSERT_EQ(run("gzip -1 -k " + q(img.string())).exit_code, 0);
  p = run(piprov::test::piprov_bin() + " provision --yes " + q(img.string() + ".gz") + " " + disk.path);
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_NE(p.err.find("provision failed at step 'patch': "), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("unknown boot layout (config.txt [pi4] kernel=uboot_rpi_4.bin; os-release: Debian"),
            std::string::npos)
      << p.err;
  // It names the disk's boot partition, not the removed temp dir, and the disk's state, not
  // "nothing was changed" (trial 9 finding 12).
  EXPECT_NE(
      p.err.find("provision failed at step 'patch': the boot partition (" + disk.path + "p1): unknown boot layout ("),
      std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("piprov patches only Ubuntu 20.04's U-Boot layout; the boot partition was not patched. Disk "
                       "state: " +
                       disk.path +
                       " holds the image as written and verified; its boot partition is NOT patched yet; "
                       "it has a new disk identifier ("),
            std::string::npos)
      << p.err;
  EXPECT_EQ(p.err.find("nothing was changed"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("piprov-provision-"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("To finish by hand"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("boot patch BOOT_DIR"), std::string::npos) << p.err;
  piprov::test::Mount written(disk.path, d.path / "written", "ext4", "ro,offset=" + std::to_string(526336ull * 512));
  EXPECT_FALSE(fs::exists(written.dir / "etc/apt/apt.conf.d/99-piprov-kernel"));
}
