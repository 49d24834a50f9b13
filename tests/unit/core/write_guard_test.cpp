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
  };
  switch (rule) {
    case R::MissingDevPath: s.kind = TargetKind::Missing, s.path = "/dev/sdz9"; break;
    case R::MissingDirectory:
      s.kind = TargetKind::Missing, s.path = "/no/such/x.img", s.missing_dir = "/no/such";
      break;
    case R::Directory: s.kind = TargetKind::Other, s.path = "/srv/data", s.directory = true; break;
    case R::NotDiskOrFile: s.kind = TargetKind::Other, s.path = "/dev/null"; break;
    case R::Partition: disk(TargetKind::Partition, "/dev/sdb1"), s.partition_of = "/dev/sdb"; break;
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
  }
  return s;
}

// The policy, written out as a specification (not read from the table).
// a = allow, r = refuse, f = needs the intent's flag.
// Columns: WholeDiskImage, ImageFile, DestructiveBench, BenchTestFile.
const std::map<R, std::string> kSpec = {
    {R::MissingDevPath, "rrrr"}, {R::MissingDirectory, "rrrr"}, {R::Directory, "rrra"},    {R::NotDiskOrFile, "rrrr"},
    {R::Partition, "rrar"},      {R::SystemDisk, "rrrr"},       {R::ReadOnly, "rrrr"},     {R::PseudoFs, "rrrr"},
    {R::RamFs, "aarr"},          {R::LoopBackingFile, "rrrr"},  {R::ProtectedDir, "rrrr"}, {R::Mounted, "frrr"},
    {R::ExistingData, "affr"},
};
const I kIntents[] = {I::WholeDiskImage, I::ImageFile, I::DestructiveBench, I::BenchTestFile};
constexpr WriteFlags kAllFlags{.unmount = true, .overwrite = true, .destructive = true};

bool refused_by(R rule, const WriteSubject& s, I intent, const WriteFlags& flags) {
  auto no = evaluate_write(s, intent, flags);
  return no && no->rule == rule;
}

TEST(WriteGuard, EveryRuleTimesEveryIntentFollowsThePolicy) {
  ASSERT_EQ(kSpec.size(), std::size(kWriteRules));
  for (R rule : kWriteRules) {
    const WriteSubject s = subject_for(rule);
    for (int i = 0; i < 4; ++i) {
      const char want = kSpec.at(rule)[i];
      const I intent = kIntents[i];
      SCOPED_TRACE(std::string(rule_name(rule)) + " x intent " + std::to_string(i));
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

std::string message_of(R rule, I intent) {
  auto no = evaluate_write(subject_for(rule), intent, {});
  return no ? no->message : "(allowed)";
}

TEST(WriteGuard, OneMessagePerRuleNamingThePathWhyAndWhatToDo) {
  EXPECT_EQ(message_of(R::MissingDevPath, I::ImageFile),
            "/dev/sdz9 does not exist; run 'piprov devices' to list disks");
  EXPECT_EQ(message_of(R::MissingDirectory, I::ImageFile),
            "cannot create /no/such/x.img: directory /no/such does not exist");
  EXPECT_EQ(message_of(R::Directory, I::ImageFile),
            "/srv/data is a directory; give a disk (see 'piprov devices') or a new file name");
  EXPECT_EQ(message_of(R::NotDiskOrFile, I::DestructiveBench),
            "/dev/null is neither a block device nor a regular file; give a directory for a test file of its own");
  EXPECT_EQ(message_of(R::Partition, I::WholeDiskImage),
            "/dev/sdb1 is a partition; give the whole disk (/dev/sdb) instead");
  EXPECT_EQ(message_of(R::SystemDisk, I::WholeDiskImage),
            "/dev/sdb is a system disk (partition sdb2 is mounted at /; partition sdb3 is active swap): piprov never "
            "writes it");
  auto part = subject_for(R::SystemDisk);
  part.kind = TargetKind::Partition, part.path = "/dev/sdb1";
  EXPECT_EQ(evaluate_write(part, I::DestructiveBench, {})->message,
            "/dev/sdb1 is on /dev/sdb, a system disk (partition sdb2 is mounted at /; partition sdb3 is active swap): "
            "piprov never writes it");
  EXPECT_EQ(message_of(R::ReadOnly, I::DestructiveBench),
            "/dev/sdb is read-only: check the write-protect switch (SD adapters) or the device's ro flag");
  EXPECT_EQ(message_of(R::PseudoFs, I::ImageFile),
            "/proc/version is on a kernel pseudo file system (/proc, /sys, /dev, ...): piprov never writes there; give "
            "a disk (see 'piprov devices') or a new file name");
  EXPECT_EQ(message_of(R::RamFs, I::BenchTestFile),
            "/run/x.img is on /run (a memory file system, not storage): give a directory on the disk to measure");
  EXPECT_EQ(message_of(R::LoopBackingFile, I::DestructiveBench),
            "/srv/disk.img is the backing file of /dev/loop3: writing it would corrupt that disk under its users; "
            "detach it first (losetup -d /dev/loop3)");
  EXPECT_EQ(message_of(R::ProtectedDir, I::DestructiveBench),
            "/etc/passwd is an existing system file: piprov never overwrites files under /etc; give a directory for a "
            "test file of its own");
  EXPECT_EQ(message_of(R::Mounted, I::WholeDiskImage),
            "/dev/sdb has mounted file systems (/dev/sdb1 on /mnt): unmount them or pass --unmount");
  EXPECT_EQ(message_of(R::Mounted, I::DestructiveBench),
            "/dev/sdb has mounted file systems (/dev/sdb1 on /mnt): unmount them or give a directory for a test file "
            "of its own");
  EXPECT_EQ(message_of(R::ExistingData, I::ImageFile),
            "/srv/old.img is an existing file (5 B): writing the image would overwrite its data; pass --overwrite if "
            "you mean it, or give a disk (see 'piprov devices') or a new file name");
  auto dev = subject_for(R::ExistingData);
  dev.kind = TargetKind::WholeDisk, dev.path = "/dev/loop3";
  EXPECT_EQ(evaluate_write(dev, I::DestructiveBench, {})->message,
            "/dev/loop3 is an existing block device: the write tests would overwrite its data; pass --destructive if "
            "you mean it, or give a directory for a test file of its own");
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
  EXPECT_FALSE(std::filesystem::exists("/etc/piprov-test-report.svg"));
  EXPECT_NE(refused(d.path.string()), "");                          // a directory
  EXPECT_NE(refused((d.path / "no/such/dir/x.svg").string()), "");  // its directory is missing
  EXPECT_EQ(refused((d.path / "new.svg").string()), "");            // a new file
  test::write_file(d.path / "old.svg", "<svg/>");
  EXPECT_EQ(refused((d.path / "old.svg").string()), "");  // the user's own file is replaced, as fio --output does
}

}  // namespace
}  // namespace piprov
