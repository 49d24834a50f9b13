#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov;

using piprov::test::read_file;
using piprov::test::TempDir;

TEST(AtomicFile, ReplacesContentAndLeavesNoTemp) {
  TempDir d;
  auto target = d.path / "vmlinux";
  { std::ofstream(target) << "old kernel"; }
  atomic_write(target, "new kernel");
  EXPECT_EQ(read_file(target), "new kernel");
  int n = 0;
  for (auto& e : fs::directory_iterator(d.path)) {
    (void)e;
    ++n;
  }
  EXPECT_EQ(n, 1);
}

TEST(AtomicFile, WithoutCommitTargetIsUntouched) {
  TempDir d;
  auto target = d.path / "config.txt";
  { std::ofstream(target) << "kept"; }
  {
    AtomicFile f(target);
    f.write("half written");
    EXPECT_TRUE(fs::exists(f.temp_path()));
  }
  EXPECT_EQ(read_file(target), "kept");
  int n = 0;
  for (auto& e : fs::directory_iterator(d.path)) {
    (void)e;
    ++n;
  }
  EXPECT_EQ(n, 1);
}

TEST(AtomicFile, ModeIsApplied) {
  TempDir d;
  auto target = d.path / "hook";
  atomic_write(target, "#!/bin/sh\n", 0755);
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::owner_exec, fs::perms::owner_exec);
}

TEST(AtomicFile, MissingDirectoryIsIoError) {
  piprov::test::expect_error(ErrorKind::Io, "/nonexistent-dir-piprov",
                             [&] { atomic_write("/nonexistent-dir-piprov/x", "y"); });
}
