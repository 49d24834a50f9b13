// write_image() onto regular files (no root needed): exact content, tail
// handling, confirmation rules, cleanup after a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include <nlohmann/json.hpp>
#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/hashing.hpp"
#include "image/verify.hpp"

#include "image/write.hpp"
#include "support/testsupport.hpp"
#include "write_test_support.hpp"

namespace piprov::image {
namespace {
namespace fs = std::filesystem;

std::string xxh3(const std::string& s) {
  Xxh3_128 h;
  h.update(std::as_bytes(std::span(s.data(), s.size())));
  return h.hex();
}

TEST(WriteToFile, UnalignedImageIsWrittenExactlyAndVerified) {
  test::TempDir d;
  for (std::size_t n : {std::size_t{1000}, std::size_t{(1u << 20) + 4097}, std::size_t{(9u << 20) + 1}}) {
    std::string data = write_test::pattern(n);
    test::write_file(d.path / "in.img", data);
    auto out = (d.path / "out.img").string();
    std::filesystem::remove(out);
    auto r = write_image(write_test::opts((d.path / "in.img").string(), out));
    EXPECT_EQ(test::read_file(out), data) << n;
    EXPECT_EQ(r.image_bytes, n);
    ASSERT_EQ(r.targets.size(), 1u);
    EXPECT_EQ(r.targets[0].bytes_written, n);
    EXPECT_EQ(r.input_bytes, n);
    EXPECT_EQ(r.format, "raw");
    EXPECT_TRUE(r.targets[0].ok);
    EXPECT_TRUE(r.targets[0].verified);
    EXPECT_EQ(r.xxh3_128, xxh3(data));
    EXPECT_TRUE(r.targets[0].partitions.empty());
    EXPECT_EQ(r.speed.xz_blocks, 0u);
    // A raw image has no decoder: never "decode-bound ... nothing to decode" (issue 29).
    EXPECT_TRUE(r.speed.verdict == "read-bound" || r.speed.verdict == "device-bound") << r.speed.verdict;
    EXPECT_EQ(r.speed.decode_note.rfind("raw: not compressed, read on ", 0), 0u) << r.speed.decode_note;
    EXPECT_EQ(r.speed.verdict_line.find("decoder"), std::string::npos) << r.speed.verdict_line;
    EXPECT_TRUE(r.random_access);
  }
}

TEST(WriteToFile, ReportsWriteThenVerifyAsProgressEvents) {
  test::TempDir d;
  const std::string data = write_test::pattern((3u << 20) + 5);
  test::write_file(d.path / "in.img", data);
  std::vector<ProgressEvent> events;
  WriteOptions o = write_test::opts((d.path / "in.img").string(), (d.path / "out.img").string());
  o.progress = [&events](const ProgressEvent& e) { events.push_back(e); };
  write_image(o);
  std::vector<std::pair<ProgressEvent::Kind, piprov::Phase>> bounds;
  for (const auto& e : events)
    if (e.kind != ProgressEvent::Kind::Update) bounds.emplace_back(e.kind, e.phase);
  using K = ProgressEvent::Kind;
  using P = piprov::Phase;
  EXPECT_EQ(bounds, (std::vector<std::pair<K, P>>{
                        {K::Begin, P::Write}, {K::End, P::Write}, {K::Begin, P::Verify}, {K::End, P::Verify}}));
  double last = 0;
  for (const auto& e : events) {
    EXPECT_EQ(e.total, static_cast<double>(data.size())) << piprov::phase_name(e.phase);
    if (e.kind == K::Begin) last = 0;
    EXPECT_GE(e.done, last) << piprov::phase_name(e.phase);  // done never goes back within a phase
    last = e.done;
    if (e.kind == K::End) EXPECT_EQ(e.done, static_cast<double>(data.size())) << piprov::phase_name(e.phase);
  }
}

TEST(WriteToFile, XzImageDecodesIntoTheFile) {
  test::TempDir d;
  std::string data = write_test::pattern(3u << 20);
  test::write_file(d.path / "in.img", data);
  ASSERT_EQ(test::run("xz -0 -T2 --block-size=1MiB -k " + test::q((d.path / "in.img").string())).exit_code, 0);
  auto r = write_image(write_test::opts((d.path / "in.img.xz").string(), (d.path / "out.img").string()));
  EXPECT_EQ(r.format, "xz");
  EXPECT_EQ(test::read_file(d.path / "out.img"), data);
  EXPECT_EQ(r.speed.xz_blocks, 3u);  // 3 MiB in 1 MiB blocks, from the xz index
  EXPECT_NE(r.speed.decode_note.find("3 blocks: decoded on "), std::string::npos) << r.speed.decode_note;
}

TEST(WriteToFile, SeveralFilesFromOneDecodeEachHoldTheImage) {
  test::TempDir d;
  std::string data = write_test::pattern((6u << 20) + 123);
  test::write_file(d.path / "in.img", data);
  WriteOptions o = write_test::opts((d.path / "in.img").string(), (d.path / "a.img").string());
  o.targets.push_back((d.path / "b.img").string());
  o.targets.push_back((d.path / "c.img").string());
  std::vector<std::string> targets;
  std::mutex m;
  o.progress = [&](const ProgressEvent& e) {
    std::lock_guard lk(m);
    if (e.kind == ProgressEvent::Kind::End && e.phase == piprov::Phase::Write) targets.push_back(e.target);
  };
  auto r = write_image(o);
  ASSERT_EQ(r.targets.size(), 3u);
  EXPECT_EQ(r.succeeded(), 3u);
  for (const auto& t : r.targets) {
    EXPECT_TRUE(t.ok && t.verified) << t.target << ": " << t.error;
    EXPECT_EQ(test::read_file(t.target), data) << t.target;
  }
  std::sort(targets.begin(), targets.end());
  EXPECT_EQ(targets, o.targets);  // each target's write phase, named
}

// Several targets, one refused (issue 29): --json gives each target its own
// message, not the joined one.
TEST(WriteToFile, OneRefusedTargetOfSeveralHasItsOwnJsonMessage) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(1u << 20));
  test::write_file(d.path / "keep.img", "precious");  // an existing file, no --overwrite
  WriteOptions o = write_test::opts((d.path / "in.img").string(), (d.path / "new.img").string());
  o.targets.push_back((d.path / "keep.img").string());
  try {
    write_image(o);
    FAIL() << "an existing file was overwritten without --overwrite";
  } catch (const TargetsRefused& e) {
    ASSERT_EQ(e.per_target().size(), 2u);
    EXPECT_EQ(e.per_target()[0], "");
    EXPECT_NE(e.per_target()[1].find(o.targets[1]), std::string::npos) << e.per_target()[1];
    const auto j = write_failure_json(o, e);
    EXPECT_EQ(j["targets"][0]["target"], o.targets[0]);
    EXPECT_EQ(j["targets"][0]["error"]["message"], "not written: another target was refused");
    EXPECT_EQ(j["targets"][1]["error"]["message"], e.per_target()[1]);
    EXPECT_EQ(j["targets"][1]["error"]["exit_code"], 2);
    EXPECT_NE(j["error"]["message"].get<std::string>().find("nothing was written to any target"), std::string::npos);
  }
  EXPECT_EQ(test::read_file(d.path / "keep.img"), "precious");
  EXPECT_FALSE(std::filesystem::exists(d.path / "new.img"));
}

// Ctrl-C during an --overwrite of an existing file (issue 29): the file is
// not removed (piprov removes only a file it created) and the message says
// it holds an incomplete image, as docs/write.md "Errors and exit codes" says.
TEST(WriteToFile, InterruptedOverwriteLeavesTheExistingFileSayingItIsIncomplete) {
  test::TempDir d;
  const std::string data = write_test::pattern(24u << 20);
  test::write_file(d.path / "in.img", data);
  test::write_file(d.path / "old.img", "an older image");
  WriteOptions o = write_test::opts((d.path / "in.img").string(), (d.path / "old.img").string());
  o.overwrite = true;
  o.assume_yes = true;
  o.progress = [](const ProgressEvent& e) {
    if (e.phase == Phase::Write && e.done > 0) request_cancel();
  };
  try {
    write_image(o);
    ADD_FAILURE() << "not interrupted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Interrupted);
    EXPECT_NE(std::string(e.what()).find("interrupted while writing; "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(" of 24.0 MiB written; " + o.targets[0] + " holds an incomplete image"),
              std::string::npos)
        << e.what();
  }
  reset_cancel();
  EXPECT_TRUE(std::filesystem::exists(d.path / "old.img"));
  EXPECT_NE(test::read_file(d.path / "old.img"), data);
}

TEST(WriteToFile, TheSameFileTwiceIsRefusedAndNothingIsWritten) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(1u << 20));
  WriteOptions o = write_test::opts((d.path / "in.img").string(), (d.path / "a.img").string());
  o.targets.push_back((d.path / "b.img").string());
  o.targets.push_back((d.path / "." / "a.img").string());
  test::expect_error(ErrorKind::Usage, "is the same file as " + (d.path / "a.img").string(), [&] { write_image(o); });
  EXPECT_FALSE(std::filesystem::exists(d.path / "a.img"));
  EXPECT_FALSE(std::filesystem::exists(d.path / "b.img"));
}

TEST(WriteToFile, ExistingFileNeedsConfirmation) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(5u << 20));
  test::write_file(d.path / "old.img", "12345");
  auto o = write_test::opts((d.path / "in.img").string(), (d.path / "old.img").string());
  try {
    write_image(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), (d.path / "old.img").string() +
                                         " is an existing file (5 B): writing the image would overwrite its data; pass "
                                         "--overwrite if you mean it, or give a disk (see 'piprov devices') or a new "
                                         "file name");
  }
  EXPECT_EQ(test::read_file(d.path / "old.img"), "12345");
  o.overwrite = true;
  try {
    write_image(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()),
              "refusing to write " + (d.path / "old.img").string() + " without confirmation: pass --yes");
  }
  std::string asked;
  o.confirm = [&](const std::string& summary) {
    asked = summary;
    return false;
  };
  EXPECT_THROW(write_image(o), Error);
  EXPECT_EQ(asked, "piprov will OVERWRITE the file:\n  " + (d.path / "old.img").string() +
                       ": existing file, 5 B (it will be overwritten)\nwith " + (d.path / "in.img").string() +
                       " (raw, 5.0 MiB)");
  EXPECT_EQ(test::read_file(d.path / "old.img"), "12345");
  o.confirm = [](const std::string&) { return true; };
  EXPECT_EQ(write_image(o).image_bytes, 5u << 20);
}

TEST(WriteToFile, CorruptInputRemovesTheIncompleteFile) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(3u << 20));
  ASSERT_EQ(test::run("cd " + test::q(d.path.string()) + " && gzip -c in.img | head -c 2000000 > bad.img.gz").exit_code,
            0);
  auto out = d.path / "out.img";
  try {
    write_image(write_test::opts((d.path / "bad.img.gz").string(), out.string()));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    std::string m = e.what();
    EXPECT_NE(m.find("is truncated or corrupt (gzip data)"), std::string::npos) << m;
    EXPECT_NE(m.find("the incomplete file " + out.string() + " was removed"), std::string::npos) << m;
  }
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(WriteToFile, Sha256IsCheckedOnTheInputFile) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(2u << 20));
  auto sha = test::run("sha256sum " + test::q((d.path / "in.img").string())).out.substr(0, 64);
  auto o = write_test::opts((d.path / "in.img").string(), (d.path / "out.img").string());
  o.sha256 = sha;
  EXPECT_EQ(write_image(o).sha256, sha);
  std::filesystem::remove(d.path / "out.img");
  o.sha256 = std::string(64, 'f');
  try {
    write_image(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Verify);
  }
  EXPECT_FALSE(std::filesystem::exists(d.path / "out.img"));
}

TEST(WriteToFile, SystemFilesAreRefusedEvenWithOverwriteAndYes) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(1u << 20));
  auto o = write_test::opts((d.path / "in.img").string(), "/etc/passwd");
  o.overwrite = true;
  o.assume_yes = true;
  const std::string before = test::read_file("/etc/passwd");
  try {
    write_image(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()),
              "/etc/passwd is an existing system file: piprov never overwrites files under /etc; give a disk (see "
              "'piprov devices') or a new file name");
  }
  EXPECT_EQ(test::read_file("/etc/passwd"), before);
}

// A new file under a system directory is refused too (also through a
// dangling symlink that points there), and nothing is created.
TEST(WriteToFile, NewFilesUnderSystemDirectoriesAreRefused) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(1u << 20));
  const fs::path link = d.path / "link";
  fs::create_symlink("/etc/piprov-test-new-file", link);
  for (const std::string& target :
       std::vector<std::string>{"/etc/piprov-test-new-file", "/usr/piprov-test-new-file", link.string()}) {
    auto o = write_test::opts((d.path / "in.img").string(), target);
    o.overwrite = true;
    o.assume_yes = true;
    try {
      write_image(o);
      ADD_FAILURE() << target << " was written";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_NE(std::string(e.what()).find(", a system directory: piprov never creates files there"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(fs::exists("/etc/piprov-test-new-file"));
  EXPECT_FALSE(fs::exists("/usr/piprov-test-new-file"));
}

// An empty file is a file (0-byte /etc/subuid, /proc/version): it needs
// --overwrite, a system or pseudo-fs one is always refused, and a failed write
// never removes a file that existed before.
TEST(WriteToFile, EmptyExistingFileIsProtectedAndNeverRemoved) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(1u << 20));
  test::write_file(d.path / "empty", "");
  auto o = write_test::opts((d.path / "in.img").string(), (d.path / "empty").string());
  o.assume_yes = true;
  try {
    write_image(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), (d.path / "empty").string() +
                                         " is an existing file (0 B): writing the image would overwrite its data; pass "
                                         "--overwrite if you mean it, or give a disk (see 'piprov devices') or a new "
                                         "file name");
  }
  // With --overwrite, a corrupt input leaves the (existing) file in place and says so.
  ASSERT_EQ(test::run("cd " + test::q(d.path.string()) + " && gzip -c in.img | head -c 500000 > bad.img.gz").exit_code,
            0);
  o.image = (d.path / "bad.img.gz").string();
  o.overwrite = true;
  try {
    write_image(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find((d.path / "empty").string() + " holds an incomplete image"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(std::filesystem::exists(d.path / "empty"));
  for (const char* pseudo : {"/proc/version", "/proc/piprov-new-file"}) {
    auto p = write_test::opts((d.path / "in.img").string(), pseudo);
    p.overwrite = p.assume_yes = true;
    try {
      write_image(p);
      FAIL() << pseudo;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), std::string(pseudo) +
                                           " is on a kernel pseudo file system (/proc, /sys, /dev, ...): piprov never "
                                           "writes there; give a disk (see 'piprov devices') or a new file name");
    }
  }
}

}  // namespace
}  // namespace piprov::image

namespace piprov::image {
namespace {
// `piprov verify` of a disk whose MBR disk identifier was renewed (what
// provision does): the mismatch says why, not only where.
TEST(VerifyFile, ADiskIdentifierMismatchSaysProvisionRenewsIt) {
  test::TempDir d("verify-id");
  std::string image(1 << 20, '\x5a');
  image[510] = '\x55', image[511] = '\xaa';  // an MBR
  image.replace(512, 8, "EFI PART");         // a GPT header (protective MBR above)
  // verify's message for a disk that is `image` with byte `at` changed to `v`
  auto mismatch = [&](std::size_t at, char v) {
    std::string disk = image;
    disk[at] = v;
    test::write_file(d.path / "img.img", image);
    test::write_file(d.path / "disk.img", disk);
    try {
      verify_image((d.path / "img.img").string(), (d.path / "disk.img").string(), 1);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Verify);
      return std::string(e.what());
    }
    return std::string("no mismatch found");
  };
  std::string m = mismatch(440, '\x01');
  EXPECT_NE(m.find("at byte offset 440 (0x1b8, 440 B): expected 0x5a, read 0x01; bytes 440-443 are the MBR disk "
                   "identifier: if piprov provision wrote this disk, it renewed it"),
            std::string::npos)
      << m;
  m = mismatch(4096, '\x02');
  EXPECT_NE(m.find("at byte offset 4096"), std::string::npos) << m;
  EXPECT_NE(m.find("GPT header or partition table"), std::string::npos) << m;
  image[510] = '\0';  // not a disk image (no MBR signature): no hint
  m = mismatch(440, '\x01');
  EXPECT_NE(m.find("at byte offset 440"), std::string::npos) << m;
  EXPECT_EQ(m.find("disk identifier"), std::string::npos) << m;
}
}  // namespace
}  // namespace piprov::image
