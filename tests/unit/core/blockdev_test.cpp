#include <gtest/gtest.h>

#include <unistd.h>
#include "support/testsupport.hpp"

#include "core/blockdev.hpp"
#include "core/error.hpp"

using namespace piprov;

TEST(ClassifyPath, FilesAndMissing) {
  EXPECT_EQ(classify_path("/nonexistent/piprov"), TargetKind::Missing);
  EXPECT_EQ(classify_path("/proc/self/exe"), TargetKind::RegularFile);
  EXPECT_EQ(classify_path("/dev/null"), TargetKind::Other);
}

TEST(ProbeDisk, NonBlockIsUsageError) {
  try {
    probe_disk("/dev/null");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("not a block device"), std::string::npos);
  }
}

TEST(ListDisks, RootFilesystemDiskIsASystemDisk) {
  // Whatever disk holds / must be flagged; in containers / may be an overlay with no disk.
  auto disks = list_disks();
  bool any_root = false;
  for (const auto& d : disks) {
    for (const auto& r : d.system_reasons)
      if (r.find("mounted at /") != std::string::npos && r.substr(r.size() - 2) == " /") any_root = true;
    if (any_root) {
      EXPECT_TRUE(d.system_disk);
      break;
    }
  }
  if (!any_root) PIPROV_SKIP("/ is not on a block device here");
}
