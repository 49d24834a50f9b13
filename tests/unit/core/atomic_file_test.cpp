#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace fs = std::filesystem;
using namespace piprov;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "piprov-test-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path); }
};
}  // namespace

TEST(AtomicFile, ReplacesContentAndLeavesNoTemp) {
  TempDir d;
  auto target = d.path / "vmlinux";
  { std::ofstream(target) << "old kernel"; }
  atomic_write(target, "new kernel");
  EXPECT_EQ(slurp(target), "new kernel");
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
  EXPECT_EQ(slurp(target), "kept");
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
  try {
    atomic_write("/nonexistent-dir-piprov/x", "y");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir-piprov"), std::string::npos);
  }
}
