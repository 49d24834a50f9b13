// piprov write IMAGE DEV... : one decode feeds every target; each target is
// byte-identical to `xz -dc`; a target that fails mid-write is reported with
// its offset while the others finish (exit 5); any refused target means
// nothing is written anywhere; the summary says what limited the speed.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "core/strings.hpp"
#include "fixtures.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

std::string xz_image() { return (image_fixtures() / "t.img.xz").string(); }

/// Exit code of `cmp` between `xz -dc t.img.xz` and the first bytes of `dev`.
int cmp_with_image(const std::string& dev) {
  const auto& fx = image_fixtures();
  return run("xz -dc " + q(xz_image()) + " | cmp -n " + std::to_string(fx.img_size) + " - " + dev).exit_code;
}

std::string devices(const std::vector<std::unique_ptr<LoopDevice>>& devs) {
  std::string s;
  for (const auto& d : devs) s += " " + d->path;
  return s;
}

TEST(WriteMulti, ThreeLoopDevicesFromOneDecodeAreEachTheDecodedImage) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-multi");
  std::vector<std::unique_ptr<LoopDevice>> devs;
  for (int i = 0; i < 3; ++i)
    devs.push_back(std::make_unique<LoopDevice>(tmp.path / ("dev" + std::to_string(i)), kDevBytes));
  auto r = run(piprov_bin() + " write --yes --progress none " + q(xz_image()) + devices(devs));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("wrote the 321.0 MiB image (xz ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" to 3 of 3 targets in "), std::string::npos) << r.out;
  for (const auto& d : devs) {
    EXPECT_NE(r.out.find("\n  " + d->path + ": ok, written in "), std::string::npos) << r.out;
    EXPECT_EQ(cmp_with_image(d->path), 0) << d->path;
    EXPECT_TRUE(std::filesystem::exists(d->path + "p2")) << d->path;
  }
  EXPECT_NE(r.out.find("\nspeed: "), std::string::npos) << r.out;
}

TEST(WriteMulti, TargetOnAFullTmpfsFailsWithItsOffsetWhileTheOthersSucceed) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-multi");
  Mount mnt("tmpfs", tmp.path / "tmpfs", "tmpfs", "size=96m");
  std::vector<std::unique_ptr<LoopDevice>> devs;
  for (int i = 0; i < 3; ++i)
    devs.push_back(std::make_unique<LoopDevice>(tmp.path / ("dev" + std::to_string(i)), kDevBytes));
  // 400 MiB sparse on a 96 MiB tmpfs: the loop device fills up mid-write
  // (--full: every byte is written, free space included).
  devs.push_back(std::make_unique<LoopDevice>(mnt.dir / "full.img", kDevBytes));
  const std::string bad = devs.back()->path;
  auto r = run(piprov_bin() + " write --yes --progress none --full --json " + q(xz_image()) + devices(devs));
  EXPECT_EQ(r.exit_code, 5) << r.err;  // some targets failed, the others were written
  auto j = nlohmann::json::parse(r.out);
  // Out of tmpfs space the loop driver fails the write, or (a request that ran
  // out part-way) completes it with its end lost, which verify's read-back finds.
  const bool at_write = j["targets"][3]["error"]["kind"] == "io";
  if (at_write) {
    EXPECT_EQ(r.err.rfind("piprov: error: writing " + bad + " failed at byte offset ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("the first MiB was not written, so " + bad + " does not look bootable"), std::string::npos);
  } else {
    EXPECT_EQ(j["targets"][3]["error"]["kind"], "verify") << r.out;
    EXPECT_EQ(r.err.rfind("piprov: error: verify failed: " + bad + " differs from ", 0), 0u) << r.err;
  }
  EXPECT_EQ(j["schema"], "piprov.write/3");
  EXPECT_EQ(j["succeeded"], 3);
  EXPECT_EQ(j["failed"], 1);
  ASSERT_EQ(j["targets"].size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(j["targets"][i]["ok"], true) << j["targets"][i].dump();
    EXPECT_EQ(j["targets"][i]["verified"], true);
    EXPECT_EQ(cmp_with_image(devs[static_cast<std::size_t>(i)]->path), 0);
  }
  const auto& f = j["targets"][3];
  EXPECT_EQ(f["target"], bad);
  EXPECT_EQ(f["ok"], false);
  ASSERT_TRUE(f["error"]["offset"].is_number()) << f.dump();
  const auto offset = f["error"]["offset"].get<std::uint64_t>();
  EXPECT_GT(offset, 0u);
  EXPECT_LT(offset, image_fixtures().img_size);
  EXPECT_NE(r.err.find(" at byte offset " + std::to_string(offset) + " "), std::string::npos) << r.err;
  if (at_write) EXPECT_NE(read_bytes(bad, 0, 512), read_bytes(image_fixtures() / "t.img", 0, 512));
}

// --json prints the result also when no target was written (scripts parse
// stdout); the error line and the exit code are as without it.
TEST(WriteMulti, JsonIsPrintedWhenTheOnlyTargetFails) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-multi");
  Mount mnt("tmpfs", tmp.path / "tmpfs", "tmpfs", "size=32m");
  LoopDevice full(mnt.dir / "full.img", kDevBytes);  // sparse, larger than the tmpfs
  auto r = run(piprov_bin() + " write --yes --progress none --full --json " + q(xz_image()) + " " + full.path);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "piprov.write/3");
  EXPECT_EQ(j["succeeded"], 0);
  EXPECT_EQ(j["failed"], 1);
  ASSERT_EQ(j["targets"].size(), 1u);
  EXPECT_EQ(j["targets"][0]["ok"], false);
  // The write fails, or a request that ran out of space part-way loses its end
  // without an error and verify finds it (see TargetOnAFullTmpfs...).
  const bool at_write = j["targets"][0]["error"]["kind"] == "io";
  EXPECT_EQ(r.exit_code, at_write ? 3 : 4) << r.err;
  EXPECT_EQ(j["targets"][0]["error"]["exit_code"], at_write ? 3 : 4);
  EXPECT_EQ(r.err.rfind(at_write ? "piprov: error: writing " + full.path + " failed at byte offset "
                                 : "piprov: error: verify failed: " + full.path + " differs from ",
                        0),
            0u)
      << r.err;
  ASSERT_TRUE(j["targets"][0]["error"]["offset"].is_number()) << j.dump();
  EXPECT_NE(r.err.find(" at byte offset " + std::to_string(j["targets"][0]["error"]["offset"].get<std::uint64_t>())),
            std::string::npos);
  // Refused before writing: an object too, with the refusal as its error.
  auto no = run(piprov_bin() + " write --yes --progress none --json " + q(xz_image()) + " /dev/piprov-no-such-disk");
  EXPECT_EQ(no.exit_code, 2) << no.err;
  auto nj = nlohmann::json::parse(no.out);
  EXPECT_EQ(nj["succeeded"], 0);
  EXPECT_EQ(nj["error"]["kind"], "usage");
  EXPECT_EQ(nj["targets"][0]["target"], "/dev/piprov-no-such-disk");
  EXPECT_EQ("piprov: error: " + nj["error"]["message"].get<std::string>() + "\n", no.err);
}

// A symlink to a disk in the current directory, given by its bare name (as
// from `cd /dev/disk/by-id`), is that disk, not a kernel name.
TEST(WriteMulti, ABareNameThatIsASymlinkHereIsTheDiskItPointsTo) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-multi");
  LoopDevice dev(tmp.path / "dev", kDevBytes);
  std::filesystem::create_symlink(dev.path, tmp.path / "usb-Some_Disk-0:0");
  auto r = run("cd " + q(tmp.path.string()) + " && " + piprov_bin() + " write --yes --no-verify --progress none " +
               q(xz_image()) + " usb-Some_Disk-0:0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" to usb-Some_Disk-0:0 in "), std::string::npos) << r.out;
  EXPECT_EQ(cmp_with_image(dev.path), 0);
}

// Ctrl-C at the [y/N] question ends piprov as Ctrl-C does everywhere
// (exit 130), not as a "no" (exit 2); nothing is written.
TEST(WriteMulti, CtrlCAtTheConfirmationExits130AndWritesNothing) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("script");
  TempDir tmp("piprov-multi");
  LoopDevice dev(tmp.path / "dev", kDevBytes);
  const std::string d = tmp.path.string();
  std::string inner = "echo $$ > " + q(d + "/pid") + "; exec " + piprov_bin() + " write --progress none " +
                      q(xz_image()) + " " + dev.path;
  // script(1)'s input is a FIFO this shell holds open: the question waits for
  // an answer that never comes (no EOF) until the Ctrl-C.
  auto r = run("mkfifo " + q(d + "/in") + "; exec 3<>" + q(d + "/in") + "; script -qfec " + q(inner) + " " +
               q(d + "/tty.log") + " <" + q(d + "/in") + " >/dev/null & s=$!; i=0; " +
               "while [ $i -lt 1200 ] && ! grep -qF '[y/N]' " + q(d + "/tty.log") + " 2>/dev/null; do sleep 0.05; " +
               "i=$((i+1)); done; kill -INT $(cat " + q(d + "/pid") + "); wait $s; echo rc=$?; exec 3>&-");
  const std::string tty = read_file(tmp.path / "tty.log");
  EXPECT_NE(r.out.find("rc=130"), std::string::npos) << r.out << tty;
  EXPECT_NE(tty.find("piprov: error: interrupted at the confirmation: nothing was written"), std::string::npos) << tty;
  EXPECT_EQ(run("cmp -s -n 1048576 " + dev.path + " /dev/zero").exit_code, 0) << "something was written";
}

TEST(WriteMulti, AnyRefusedTargetMeansNothingIsWrittenOnTheOthers) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-multi");
  LoopDevice a(tmp.path / "a", kDevBytes), b(tmp.path / "b", kDevBytes);
  LoopDevice ro(tmp.path / "ro", kDevBytes, /*read_only=*/true);
  // A pattern in the first MiB of a and b: the write must not even wipe it.
  for (const auto* d : {&a, &b})
    ASSERT_EQ(run("head -c 1048576 /dev/zero | tr '\\0' '\\253' | dd of=" + q(d->backing.string()) +
                  " conv=notrunc status=none")
                  .exit_code,
              0);
  const std::string pattern = read_bytes(a.backing, 0, 1 << 20);
  auto r = run(piprov_bin() + " write --yes --progress none " + q(xz_image()) + " " + a.path + " " + ro.path + " " +
               b.path + " " + a.path);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  auto lines = run("printf '%s' " + q(r.err) + " | grep -c '^piprov: error: '").out;
  EXPECT_EQ(lines, "3\n") << r.err;  // the read-only one, the duplicate, "nothing was written"
  EXPECT_NE(r.err.find("piprov: error: " + ro.path + " "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("piprov: error: " + a.path + " is the same disk as " + a.path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was written to any target"), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(a.backing, 0, 1 << 20), pattern);
  EXPECT_EQ(read_bytes(b.backing, 0, 1 << 20), pattern);
  // One refused target among several: its line, and that none was written.
  auto one = run(piprov_bin() + " write --yes --progress none " + q(xz_image()) + " " + a.path + " " + ro.path);
  EXPECT_EQ(one.exit_code, 2) << one.err;
  EXPECT_NE(one.err.find("piprov: error: " + ro.path + " "), std::string::npos) << one.err;
  EXPECT_NE(one.err.find("piprov: error: nothing was written to any target"), std::string::npos) << one.err;
  EXPECT_EQ(read_bytes(a.backing, 0, 1 << 20), pattern);
}

/// `xz FLAGS` of 8 MiB of t.img, written to a loop device with --json.
nlohmann::json write_xz(const TempDir& tmp, const std::string& name, const std::string& xz_flags,
                        std::string* text = nullptr) {
  auto img = tmp.path / (name + ".img.xz");
  // 8 MiB from inside the image (no partition table: nothing to wait for after BLKRRPART).
  EXPECT_EQ(run("dd if=" + q((image_fixtures() / "t.img").string()) + " bs=1M skip=16 count=8 status=none | xz -0 " +
                xz_flags + " > " + q(img.string()))
                .exit_code,
            0);
  LoopDevice dev(tmp.path / (name + ".dev"), 16ull << 20);
  auto r = run(piprov_bin() + " write --yes --progress none --json " + q(img.string()) + " " + dev.path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (text) *text = run(piprov_bin() + " write --yes --progress none " + q(img.string()) + " " + dev.path).out;
  return nlohmann::json::parse(r.out);
}

TEST(WriteMulti, SummaryStatesTheLimitForOneBlockAndMultiBlockXz) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("xz");
  TempDir tmp("piprov-multi");
  std::string text;
  auto one = write_xz(tmp, "one", "-T1", &text);
  EXPECT_EQ(one["speed"]["xz_blocks"], 1);
  EXPECT_EQ(one["speed"]["usable_threads"], 1);
  EXPECT_EQ(one["speed"]["decode_note"].get<std::string>().rfind("1 block: decoded on 1 core", 0), 0u);
  const std::string v1 = one["speed"]["verdict"];
  EXPECT_TRUE(v1 == "decode-bound" || v1 == "device-bound") << v1;
  EXPECT_GE(one["speed"]["writers_waited_seconds"].get<double>(), 0.0);
  EXPECT_GE(one["speed"]["decoder_waited_seconds"].get<double>(), 0.0);
  const bool says = text.find("\nspeed: decode-bound: the writer waited ") != std::string::npos ||
                    text.find("\nspeed: device-bound: the writer waited ") != std::string::npos;
  EXPECT_TRUE(says) << text;
  EXPECT_NE(text.find("; 1 block: decoded on 1 core"), std::string::npos) << text;

  auto multi = write_xz(tmp, "multi", "-T2 --block-size=1MiB");
  EXPECT_EQ(multi["speed"]["xz_blocks"], 8);
  EXPECT_GE(multi["speed"]["usable_threads"].get<unsigned>(), 1u);
  const std::string v2 = multi["speed"]["verdict"];
  EXPECT_TRUE(v2 == "decode-bound" || v2 == "device-bound") << v2;
  EXPECT_NE(multi["speed"]["verdict_line"].get<std::string>().find(" waited "), std::string::npos);
}

// Two loop devices on one backing file are one disk (loop(4)): refused like the same name twice.
TEST(WriteMulti, TwoLoopDevicesOnOneFileAreTheSameDisk) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-multi");
  LoopDevice a(tmp.path / "a", kDevBytes);
  auto second = run("losetup -f --show " + q(a.backing.string()));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  std::string b(piprov::trim(second.out));
  auto r = run(piprov_bin() + " write --yes --progress none " + q(xz_image()) + " " + a.path + " " + b);
  run("losetup -d " + b);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("piprov: error: " + b + " is the same disk as " + a.path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was written to any target"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace piprov::test
