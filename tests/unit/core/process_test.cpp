// The one way piprov runs another program (core/process.hpp), with real
// programs: sh, a program that does not exist, the process group it runs in.
#include "core/process.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/mounts.hpp"
#include "support/testsupport.hpp"

namespace piprov {
namespace {

TEST(Process, CapturesStdoutStderrAndTheExitStatus) {
  ProgramResult r = run_program({"sh", "-c", "echo out; echo 'err line' >&2; exit 3"},
                                {.env = {}, .capture_stdout = true, .input = {}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err line");  // trailing newline removed
  ProgramResult quiet = run_program({"sh", "-c", "echo dropped"});
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.out, "");  // stdout not asked for: /dev/null
}

TEST(Process, AMissingProgramIs127AndASignalIs128PlusIt) {
  ProgramResult r = run_program({"piprov-no-such-program-here"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_EQ(r.err, "piprov-no-such-program-here: command not found");
  EXPECT_EQ(run_program({"sh", "-c", "kill -TERM $$"}).exit_code, 128 + 15);
}

TEST(Process, SetsTheEnvironmentItIsGivenAndKeepsTheRest) {
  ::setenv("PIPROV_PROCESS_TEST_KEPT", "kept", 1);
  ::setenv("PIPROV_PROCESS_TEST_SET", "old", 1);
  ProgramResult r = run_program({"sh", "-c", "echo $PIPROV_PROCESS_TEST_KEPT $PIPROV_PROCESS_TEST_SET"},
                                {.env = {"PIPROV_PROCESS_TEST_SET=new"}, .capture_stdout = true, .input = {}});
  EXPECT_EQ(r.out, "kept new\n");
  ::unsetenv("PIPROV_PROCESS_TEST_KEPT");
  ::unsetenv("PIPROV_PROCESS_TEST_SET");
}

TEST(Process, TheChildHasItsOwnProcessGroupSoCtrlCReachesPiprovAlone) {
  // $$ is the shell's pid; in its own group its pgid (field 5 of /proc/PID/stat, proc(5)) equals it.
  ProgramResult r = run_program({"sh", "-c", "g=$(cut -d' ' -f5 /proc/$$/stat); echo $(( g == $$ )) $g"},
                                {.env = {}, .capture_stdout = true, .input = {}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 2), "1 ") << r.out;
  EXPECT_NE(std::stol(r.out.substr(2)), static_cast<long>(::getpgrp()));
}

TEST(ErrorErrno, AFailedMountCarriesTheSyscallErrno) {
  if (::geteuid() != 0) PIPROV_SKIP("mounting needs root");
  const auto dir = make_temp_dir("errno-test");
  try {
    mount_filesystem("none", dir.string(), "piprovnosuchfs");
    ADD_FAILURE() << "mounting an unknown file system type succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.sys_errno(), ENODEV) << e.what();  // mount(2): the kernel has no such file system type
    EXPECT_EQ(e.kind(), ErrorKind::Io);
  }
  std::filesystem::remove(dir);
  EXPECT_EQ(io_error("x", ENOSPC).sys_errno(), ENOSPC);
  EXPECT_EQ(Error(ErrorKind::Usage, "plain").sys_errno(), 0);
}

TEST(TempDirHelper, MakesAPrivateDirectoryNamedForItsUse) {
  const auto a = make_temp_dir("unit"), b = make_temp_dir("unit");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.filename().string().rfind("piprov-unit-", 0), 0u) << a;
  EXPECT_EQ(std::filesystem::status(a).permissions(), std::filesystem::perms::owner_all);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
}

}  // namespace
}  // namespace piprov

namespace piprov {
namespace {

TEST(Process, FeedsStdinAndThrowsOnAFailureNotAllowed) {
  ProgramResult r = run_program_or_throw({"sh", "-c", "tr a-z A-Z; exit 1"}, {1}, "piprov\n");
  EXPECT_EQ(r.exit_code, 1);  // allowed by ok_codes
  EXPECT_EQ(r.out, "PIPROV\n");
  test::expect_error(ErrorKind::Io, "`sh -c echo nope >&2; exit 2` failed (exit 2): nope", [] {
    run_program_or_throw({"sh", "-c", "echo nope >&2; exit 2"});
  });
}

}  // namespace
}  // namespace piprov
