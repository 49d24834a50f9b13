// The write guard: every rule x intent cell, one message per rule, and the
// facts gathered from temp files and a fake /sys.
#include "core/write_guard.hpp"

#include <gtest/gtest.h>

#include <map>

#include "core/error.hpp"
#include "support/testsupport.hpp"

namespace piprov {
namespace {

using I = WriteIntent;
using R = WriteRule;

// One subject per rule that has that rule's fact and no fact of an earlier rule.
WriteSubject subject_for(R rule) {
  WriteSubject s;
  auto disk = [&](TargetKind k, const std::string& path) {
    s.kind = k;
    s.path = path;
    s.disk.path = "/dev/sdb";
    s.disk.size_bytes = 32ull << 30;
  };
  switch (rule) {
    case R::MissingDevPath: s.kind = TargetKind::Missing, s.path = "/dev/sdz9"; break;
    case R::MissingDirectory:
      s.kind = TargetKind::Missing, s.path = "/no/such/x.img", s.missing_dir = "/no/such";
      break;
    case R::BlockDevice: disk(TargetKind::WholeDisk, "/dev/sdb"); break;
    case R::NotBlockDevice: s.kind = TargetKind::RegularFile, s.path = "/srv/disk.img", s.size = 5; break;
    case R::Directory: s.kind = TargetKind::Other, s.path = "/srv/data", s.directory = true; break;
    case R::NotDiskOrFile: s.kind = TargetKind::Other, s.path = "/dev/null"; break;
    case R::Partition: disk(TargetKind::Partition, "/dev/sdb1"), s.partition_of = "/dev/sdb"; break;
    case R::NoMedium: disk(TargetKind::WholeDisk, "/dev/sdb"), s.disk.size_bytes = 0; break;
    case R::SystemDisk:
      disk(TargetKind::WholeDisk, "/dev/sdb");
      s.disk.system_disk = true;
      s.disk.system_reasons = {"partition sdb2 is mounted at /", "partition sdb3 is active swap"};
      break;
    case R::ReadOnly: disk(TargetKind::WholeDisk, "/dev/sdb"), s.disk.read_only = true; break;
    case R::PseudoFs: s.kind = TargetKind::RegularFile, s.path = "/proc/version", s.pseudo_fs = true; break;
    case R::RamFs: s.kind = TargetKind::Missing, s.path = "/run/x.img", s.ram_dir = "/run"; break;
    case R::LoopBackingFile:
      s.kind = TargetKind::RegularFile, s.path = "/srv/disk.img", s.loop_device = "/dev/loop3";
      break;
    case R::ProtectedDir: s.kind = TargetKind::RegularFile, s.path = "/etc/passwd", s.protected_dir = "/etc"; break;
    case R::Mounted: disk(TargetKind::WholeDisk, "/dev/sdb"), s.mounted = {"/dev/sdb1 on /mnt"}; break;
    case R::ExistingData: s.kind = TargetKind::RegularFile, s.path = "/srv/old.img", s.size = 5; break;
    case R::NewPath: s.kind = TargetKind::Missing, s.path = "/mnt/ssd"; break;
  }
  return s;
}

// The policy, written out as a specification (not read from the table).
// a = allow, r = refuse, f = needs the intent's flag.
// Columns: WholeDiskImage, ImageFile, DestructiveBench, BenchTestFile, ProvisionDisk, OutputFile,
// ReadDisk, VerifyTarget.
const std::map<R, std::string> kSpec = {
    {R::MissingDevPath, "rrrrrrrr"}, {R::MissingDirectory, "rrrraraa"}, {R::Directory, "rrraarar"},
    {R::NotDiskOrFile, "rrrrarar"},  {R::Partition, "rrarrarr"},        {R::NoMedium, "rarrraar"},
    {R::SystemDisk, "rrrrraaa"},     {R::ReadOnly, "rrrrraaa"},         {R::PseudoFs, "rrrraraa"},
    {R::RamFs, "aarraaaa"},          {R::LoopBackingFile, "rrrraraa"},  {R::ProtectedDir, "rrrraraa"},
    {R::Mounted, "frrrfaaa"},        {R::ExistingData, "affraaaa"},     {R::BlockDevice, "aaaaaraa"},
    {R::NotBlockDevice, "raaarara"}, {R::NewPath, "rarrrarr"},
};
constexpr WriteFlags kAllFlags{.unmount = true, .overwrite = true, .destructive = true};

bool refused_by(R rule, const WriteSubject& s, I intent, const WriteFlags& flags) {
  auto no = evaluate_write(s, intent, flags);
  return no && no->rule == rule;
}

TEST(WriteGuard, EveryRuleTimesEveryIntentFollowsThePolicy) {
  ASSERT_EQ(kSpec.size(), std::size(kWriteRules));
  for (R rule : kWriteRules) {
    const WriteSubject s = subject_for(rule);
    for (std::size_t i = 0; i < std::size(kWriteIntents); ++i) {
      const char want = kSpec.at(rule)[i];
      const I intent = kWriteIntents[i];
      SCOPED_TRACE(std::string(rule_name(rule)) + " x " + std::string(intent_name(intent)));
      EXPECT_EQ(refused_by(rule, s, intent, {}), want != 'a');
      EXPECT_EQ(refused_by(rule, s, intent, kAllFlags), want == 'r');
    }
  }
}

TEST(WriteGuard, EachFlagLiftsOnlyItsOwnCell) {
  const auto mounted = subject_for(R::Mounted);
  EXPECT_FALSE(evaluate_write(mounted, I::WholeDiskImage, {.unmount = true}));
  EXPECT_TRUE(refused_by(R::Mounted, mounted, I::WholeDiskImage, {.overwrite = true, .destructive = true}));
  const auto file = subject_for(R::ExistingData);
  EXPECT_FALSE(evaluate_write(file, I::ImageFile, {.overwrite = true}));
  EXPECT_TRUE(refused_by(R::ExistingData, file, I::ImageFile, {.destructive = true}));
  EXPECT_FALSE(evaluate_write(file, I::DestructiveBench, {.destructive = true}));
  EXPECT_TRUE(refused_by(R::ExistingData, file, I::DestructiveBench, {.overwrite = true}));
}

TEST(WriteGuard, TheFirstRuleInOrderWins) {
  // A mounted system disk is refused as a system disk, even with --unmount.
  auto s = subject_for(R::SystemDisk);
  s.mounted = {"/dev/sdb2 on /"};
  auto no = evaluate_write(s, I::WholeDiskImage, {.unmount = true});
  ASSERT_TRUE(no);
  EXPECT_EQ(no->rule, R::SystemDisk);
  // A partition that may be benchmarked still needs --destructive.
  no = evaluate_write(subject_for(R::Partition), I::DestructiveBench, {});
  ASSERT_TRUE(no);
  EXPECT_EQ(no->rule, R::ExistingData);
}

// The table of rule, intent, verdict and message: every rule's message for
// each intent whose words differ, a = allowed (message ""), f = refused until
// the intent's flag is given, r = refused whatever the flags.
struct MessageRow {
  R rule;
  I intent;
  char verdict;
  const char* message;
};
const MessageRow kMessages[] = {
    {R::MissingDevPath, I::ImageFile, 'r', "/dev/sdz9 does not exist; run 'piprov devices' to list disks"},
    {R::MissingDevPath, I::ProvisionDisk, 'r', "/dev/sdz9 does not exist; run 'piprov devices' to list disks"},
    // An output file is never a device: a new file under /dev, named as one (trial 6 finding 10).
    {R::MissingDevPath, I::OutputFile, 'r',
     "/dev/sdz9 would be a new file under /dev, which is for devices (devtmpfs, a kernel pseudo file system), not "
     "files: piprov never creates files there; put it on a real file system (give a new file name in a directory of "
     "yours)"},
    {R::MissingDirectory, I::ImageFile, 'r', "cannot create /no/such/x.img: directory /no/such does not exist"},
    {R::MissingDirectory, I::ProvisionDisk, 'a', ""},  // refused by NewPath instead (below)
    {R::BlockDevice, I::OutputFile, 'r',
     "/dev/sdb is a block device: this output is a file; give a file name (nothing was written)"},
    {R::BlockDevice, I::WholeDiskImage, 'a', ""},
    {R::NotBlockDevice, I::ProvisionDisk, 'r',
     "/srv/disk.img is not a whole disk: provision needs a block device (for an image file, attach it with losetup "
     "--partscan)"},
    {R::NotBlockDevice, I::WholeDiskImage, 'r',
     "/srv/disk.img is not a block device; run 'piprov devices' to list disks"},
    {R::Directory, I::ImageFile, 'r',
     "/srv/data is a directory; give a disk (see 'piprov devices') or a new file name"},
    {R::Directory, I::BenchTestFile, 'a', ""},
    {R::NotDiskOrFile, I::DestructiveBench, 'r',
     "/dev/null is neither a block device nor a regular file; give a directory for a test file of its own"},
    {R::NoMedium, I::WholeDiskImage, 'r',
     "/dev/sdb has size 0 (no medium in the reader?): insert the card or disk; run 'piprov devices' to list disks"},
    {R::NoMedium, I::VerifyTarget, 'r',
     "/dev/sdb has size 0 (no medium in the reader?): insert the card or disk; give the disk or image file the image "
     "was written to"},
    {R::NoMedium, I::ReadDisk, 'a', ""},
    {R::Partition, I::WholeDiskImage, 'r', "/dev/sdb1 is a partition; give the whole disk (/dev/sdb) instead"},
    {R::Partition, I::ProvisionDisk, 'r', "/dev/sdb1 is a partition; provision the whole disk /dev/sdb"},
    {R::Partition, I::DestructiveBench, 'a', ""},
    {R::SystemDisk, I::WholeDiskImage, 'r',
     "/dev/sdb is a system disk (partition sdb2 is mounted at /; partition sdb3 is active swap): piprov never writes "
     "it"},
    {R::ReadOnly, I::DestructiveBench, 'r',
     "/dev/sdb is read-only: check the write-protect switch (SD adapters) or the device's ro flag"},
    {R::PseudoFs, I::ImageFile, 'r',
     "/proc/version is on a kernel pseudo file system (/proc, /sys, /dev, ...): piprov never writes there; give a "
     "disk (see 'piprov devices') or a new file name"},
    {R::RamFs, I::BenchTestFile, 'r',
     "/run/x.img is on /run (a memory file system, not storage): give a directory on the disk to measure"},
    {R::RamFs, I::ImageFile, 'a', ""},
    {R::LoopBackingFile, I::DestructiveBench, 'r',
     "/srv/disk.img is the backing file of /dev/loop3: writing it would corrupt that disk under its users; detach it "
     "first (losetup -d /dev/loop3)"},
    {R::ProtectedDir, I::DestructiveBench, 'r',
     "/etc/passwd is an existing system file: piprov never overwrites files under /etc; give a directory for a test "
     "file of its own"},
    {R::Mounted, I::WholeDiskImage, 'f',
     "/dev/sdb has mounted file systems (/dev/sdb1 on /mnt): unmount them or pass --unmount"},
    {R::Mounted, I::ProvisionDisk, 'f',
     "/dev/sdb has mounted file systems (/dev/sdb1 on /mnt): unmount them or pass --unmount"},
    {R::Mounted, I::DestructiveBench, 'r',
     "/dev/sdb has mounted file systems (/dev/sdb1 on /mnt): unmount them or give a directory for a test file of its "
     "own"},
    {R::ExistingData, I::ImageFile, 'f',
     "/srv/old.img is an existing file (5 B): writing the image would overwrite its data; pass --overwrite if you "
     "mean it, or give a disk (see 'piprov devices') or a new file name"},
    {R::ExistingData, I::OutputFile, 'a', ""},  // the user's own report is replaced
    {R::NewPath, I::BenchTestFile, 'r',
     "/mnt/ssd does not exist: give a directory on the mounted disk (piprov makes its own test file there), an "
     "existing file or a block device; is the disk mounted?"},
    {R::NewPath, I::ProvisionDisk, 'r', "/mnt/ssd does not exist; run 'piprov devices' to list disks"},
    {R::NewPath, I::ImageFile, 'a', ""},
    // Readers: the same messages as the writers'.
    {R::MissingDevPath, I::ReadDisk, 'r', "/dev/sdz9 does not exist; run 'piprov devices' to list disks"},
    {R::Partition, I::ReadDisk, 'r', "/dev/sdb1 is a partition; give the whole disk (/dev/sdb) instead"},
    {R::Partition, I::VerifyTarget, 'r', "/dev/sdb1 is a partition; give the whole disk (/dev/sdb) instead"},
    {R::NotBlockDevice, I::ReadDisk, 'r', "/srv/disk.img is not a block device; run 'piprov devices' to list disks"},
    {R::NotBlockDevice, I::VerifyTarget, 'a', ""},  // an image file is verified too
    {R::NotDiskOrFile, I::VerifyTarget, 'r',
     "/dev/null is neither a block device nor a regular file; give the disk or image file the image was written to"},
    {R::NewPath, I::ReadDisk, 'r', "/mnt/ssd does not exist; run 'piprov devices' to list disks"},
    {R::NewPath, I::VerifyTarget, 'r', "/mnt/ssd does not exist; give the disk or image file the image was written to"},
    {R::SystemDisk, I::ReadDisk, 'a', ""},  // reading the system disk harms nothing
    {R::Mounted, I::VerifyTarget, 'a', ""},
};

// probe_disk() is the guard with intent ReadDisk, on real paths.
TEST(WriteGuard, ProbeDiskRefusesWhatIsNotAWholeDisk) {
  for (const std::string path : {"/dev/null", "/dev/piprov-no-such-disk", "/etc/hostname"}) {
    SCOPED_TRACE(path);
    try {
      probe_disk(path);
      FAIL() << "no refusal";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      const auto want = path == "/dev/piprov-no-such-disk"
                            ? path + " does not exist; run 'piprov devices' to list disks"
                            : path + " is not a block device; run 'piprov devices' to list disks";
      EXPECT_EQ(std::string(e.what()), want);
    }
  }
}

TEST(WriteGuard, TheTableOfRuleIntentVerdictAndMessage) {
  for (const auto& row : kMessages) {
    SCOPED_TRACE(std::string(rule_name(row.rule)) + " x " + std::string(intent_name(row.intent)));
    EXPECT_EQ(kSpec.at(row.rule)[static_cast<std::size_t>(row.intent)], row.verdict);
    const WriteSubject s = subject_for(row.rule);
    auto no = evaluate_write(s, row.intent, {});
    const bool by_rule = no && no->rule == row.rule;
    EXPECT_EQ(by_rule, row.verdict != 'a');
    EXPECT_EQ(by_rule ? no->message : "", row.message);
  }
  // A system disk's partition names the disk.
  auto part = subject_for(R::SystemDisk);
  part.kind = TargetKind::Partition, part.path = "/dev/sdb1";
  EXPECT_EQ(evaluate_write(part, I::DestructiveBench, {})->message,
            "/dev/sdb1 is on /dev/sdb, a system disk (partition sdb2 is mounted at /; partition sdb3 is active swap): "
            "piprov never writes it");
  auto dev = subject_for(R::ExistingData);
  dev.kind = TargetKind::WholeDisk, dev.path = "/dev/loop3", dev.disk.size_bytes = 1ull << 30;
  EXPECT_EQ(evaluate_write(dev, I::DestructiveBench, {})->message,
            "/dev/loop3 is an existing block device: the write tests would overwrite its data; pass --destructive if "
            "you mean it, or give a directory for a test file of its own");
  // A loop device with no file attached says so.
  auto loop = subject_for(R::NoMedium);
  loop.path = loop.disk.path = "/dev/loop7";
  EXPECT_EQ(evaluate_write(loop, I::WholeDiskImage, {})->message,
            "/dev/loop7 is a loop device with no file attached (size 0): attach an image with losetup, or give "
            "another disk; run 'piprov devices' to list disks");
  // Provision: a missing path in a missing directory is only a missing disk.
  auto missing = subject_for(R::MissingDirectory);
  EXPECT_EQ(evaluate_write(missing, I::ProvisionDisk, {})->message,
            "/no/such/x.img does not exist; run 'piprov devices' to list disks");
}

// "sdb" where no file of that name exists is the disk the user meant, never a
// new file in the current directory; "./sdb" or an existing file is a file.
TEST(WriteGuard, ABareDiskNameIsRefusedNotMadeAFile) {
  test::TempDir d;
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(d.path);
  for (const std::string name : {"sdb", "nvme0n1", "mmcblk0", "sdb1", "loop7"}) {
    SCOPED_TRACE(name);
    auto s = inspect_write_subject(name);
    auto no = evaluate_write(s, I::ImageFile, {});
    ASSERT_TRUE(no.has_value());
    EXPECT_EQ(no->rule, R::MissingDevPath);
    EXPECT_EQ(no->message, name + " is the name of a disk, not a path: give /dev/" + name + " (or ./" + name +
                               " for a file of that name); run 'piprov devices' to list disks");
    EXPECT_FALSE(evaluate_write(inspect_write_subject("./" + name), I::ImageFile, {}).has_value());
  }
  test::write_file(d.path / "sdc", "old");  // an existing file of that name is that file
  EXPECT_EQ(inspect_write_subject("sdc").kind, TargetKind::RegularFile);
  EXPECT_EQ(evaluate_write(inspect_write_subject("sdc"), I::ImageFile, {})->rule, R::ExistingData);
  EXPECT_FALSE(evaluate_write(inspect_write_subject("my.img"), I::ImageFile, {}).has_value());
  std::filesystem::current_path(cwd);
}

// Facts, from temp files and a fake /sys (no root needed).

TEST(WriteSubjectFacts, FilesDirectoriesAndMissingPaths) {
  test::TempDir d;
  test::write_file(d.path / "old.img", "12345");
  auto s = inspect_write_subject((d.path / "old.img").string());
  EXPECT_EQ(s.kind, TargetKind::RegularFile);
  EXPECT_EQ(s.size, 5u);
  EXPECT_EQ(s.loop_device, "");
  EXPECT_EQ(s.protected_dir, "");
  EXPECT_FALSE(s.pseudo_fs);

  s = inspect_write_subject((d.path / "new.img").string());
  EXPECT_EQ(s.kind, TargetKind::Missing);
  EXPECT_EQ(s.missing_dir, "");
  EXPECT_FALSE(evaluate_write(s, I::ImageFile, {}));

  s = inspect_write_subject((d.path / "no/such/new.img").string());
  EXPECT_EQ(s.missing_dir, (d.path / "no/such").string());

  s = inspect_write_subject(d.path.string());
  EXPECT_TRUE(s.directory);
  EXPECT_FALSE(evaluate_write(s, I::BenchTestFile, {}));

  // A dangling symlink: its own directory exists; the one it points into is what is missing.
  std::filesystem::create_symlink(d.path / "gone/dir/x.img", d.path / "link.img");
  s = inspect_write_subject((d.path / "link.img").string());
  EXPECT_EQ(s.kind, TargetKind::Missing);
  EXPECT_EQ(s.missing_dir, (d.path / "gone/dir").string());
  auto no = evaluate_write(s, I::ImageFile, {});
  ASSERT_TRUE(no);
  EXPECT_EQ(no->message, "cannot create " + (d.path / "link.img").string() + ": it is a symlink to " +
                             (d.path / "gone/dir/x.img").string() + ", and directory " +
                             (d.path / "gone/dir").string() + " does not exist (create it, or give another path)");
}

// Active swap as the only reason: the refusal names the remedy (swapoff); with / mounted it does not.
TEST(WriteRefusal, SwapOnlyNamesSwapoff) {
  WriteSubject s;
  s.kind = TargetKind::WholeDisk;
  s.path = s.disk.path = "/dev/sdc";
  s.disk.size_bytes = 1ull << 30;
  s.disk.system_disk = true;
  s.disk.system_reasons = {"partition sdc2 is active swap"};
  auto no = evaluate_write(s, I::WholeDiskImage, {});
  ASSERT_TRUE(no);
  EXPECT_EQ(no->message,
            "/dev/sdc is a system disk (partition sdc2 is active swap): piprov never writes it; if it is not this "
            "machine's own disk, turn its swap off (swapoff /dev/sdc2) and run again");
  s.disk.system_reasons.insert(s.disk.system_reasons.begin(), "partition sdc1 is mounted at /");
  EXPECT_EQ(evaluate_write(s, I::WholeDiskImage, {})->message.find("swapoff"), std::string::npos);
}

TEST(WriteSubjectFacts, SystemAndPseudoFiles) {
  EXPECT_EQ(inspect_write_subject("/etc/passwd").protected_dir, "/etc");
  EXPECT_TRUE(inspect_write_subject("/proc/version").pseudo_fs);
  EXPECT_TRUE(inspect_write_subject("/proc/piprov-new-file").pseudo_fs);
  EXPECT_TRUE(inspect_write_subject("/dev").pseudo_fs);
  if (std::filesystem::is_directory("/run")) {
    EXPECT_EQ(inspect_write_subject("/run").ram_dir, "/run");
  }
  EXPECT_EQ(inspect_write_subject("/dev/null").kind, TargetKind::Other);
}

// The bench --destructive hole: the backing file of a (mounted) loop device
// is that disk, for every intent that writes an existing file.
TEST(WriteSubjectFacts, LoopBackingFileFoundThroughTheSysRoot) {
  test::TempDir sys("piprov-fake-sys");
  test::TempDir d;
  test::write_file(d.path / "disk.img", std::string(4096, 'x'));
  const std::string real = std::filesystem::canonical(d.path / "disk.img").string();
  test::write_file(sys.path / "sys/block/loop7/loop/backing_file", real + "\n");
  test::write_file(sys.path / "sys/block/loop8/loop/backing_file", real + ".other\n");
  test::write_file(sys.path / "sys/block/sda/size", "100\n");
  SysRoot root(sys.path);

  auto s = inspect_write_subject(real, root);
  EXPECT_EQ(s.loop_device, "/dev/loop7");
  for (I intent : {I::DestructiveBench, I::ImageFile}) {
    try {
      check_write(real, intent, kAllFlags, root);
      FAIL() << "the backing file of /dev/loop7 was allowed";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_EQ(std::string(e.what()), real +
                                           " is the backing file of /dev/loop7: writing it would corrupt that disk "
                                           "under its users; detach it first (losetup -d /dev/loop7)");
    }
  }
  EXPECT_EQ(inspect_write_subject(real, SysRoot(d.path)).loop_device, "");  // no loop devices there
}

TEST(ProtectedDirOf, SystemDirectoriesOnly) {
  EXPECT_EQ(protected_dir_of("/etc/passwd"), "/etc");
  EXPECT_EQ(protected_dir_of("/usr/lib/x"), "/usr");
  EXPECT_EQ(protected_dir_of("/var/lib/dpkg/status"), "/var/lib");
  EXPECT_EQ(protected_dir_of("/lib64/ld.so"), "/lib64");
  EXPECT_EQ(protected_dir_of("/var/tmp/x.img"), "");
  EXPECT_EQ(protected_dir_of("/etcetera/x"), "");
  EXPECT_EQ(protected_dir_of("/home/u/x.img"), "");
}

// Output files (bench --svg, eeprom set-boot-order --out): a file of the user's,
// never a device, a directory or a system directory.
TEST(CheckOutputFile, RefusesDevicesDirectoriesAndSystemDirs) {
  test::TempDir d;
  auto refused = [](const std::string& path) {
    try {
      check_output_file(path, "--svg");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refused("/dev/null").rfind("--svg /dev/null", 0), 0u) << refused("/dev/null");
  EXPECT_NE(refused("/etc/piprov-test-report.svg"), "");
  // The advice is for an output file: never "give a disk".
  EXPECT_EQ(refused("/etc/piprov-test-report.svg").find("give a disk"), std::string::npos)
      << refused("/etc/piprov-test-report.svg");
  EXPECT_NE(refused("/etc/piprov-test-report.svg").find("give a new file name in a directory of yours"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists("/etc/piprov-test-report.svg"));
  // A new file under /dev (devtmpfs) is named so, never "does not exist; run 'piprov devices'".
  EXPECT_EQ(refused("/dev/piprov-no-such-disk1.img"),
            "--svg /dev/piprov-no-such-disk1.img would be a new file under /dev, which is for devices (devtmpfs, a "
            "kernel pseudo file system), not files: piprov never creates files there; put it on a real file system "
            "(give a new file name in a directory of yours)");
  EXPECT_NE(refused(d.path.string()), "");                          // a directory
  EXPECT_NE(refused((d.path / "no/such/dir/x.svg").string()), "");  // its directory is missing
  EXPECT_EQ(refused((d.path / "new.svg").string()), "");            // a new file
  test::write_file(d.path / "old.svg", "<svg/>");
  EXPECT_EQ(refused((d.path / "old.svg").string()), "");  // the user's own file is replaced, as fio --output does
}

}  // namespace
}  // namespace piprov
