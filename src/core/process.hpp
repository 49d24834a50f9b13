#pragma once
// The one way piprov runs another program (mtools, vcgencmd, e2fsck,
// resize2fs, sfdisk, losetup): argv without a shell, started with
// posix_spawnp() (safe while other threads run: a child forked from a
// threaded process may only call async-signal-safe functions, POSIX fork()
// "Application Usage"), stdin on /dev/null or fed from a string, stdout and
// stderr captured through unlinked temp files (no pipe to drain, no deadlock
// on a chatty child). The child runs in its own process group, so Ctrl-C at the
// terminal reaches piprov alone: piprov decides what an interrupt means and
// says so, and the child's own complaint about SIGINT never reaches the user.
#include <string>
#include <string_view>
#include <vector>

namespace piprov {

/// How to run a program.
struct ProgramOptions {
  /// "NAME=value" entries set in the child's environment (the rest is this
  /// process's environment, copied before the spawn).
  std::vector<std::string> env;
  bool capture_stdout = false;  ///< keep stdout in ProgramResult::out (else /dev/null)
  std::string input;            ///< fed to its stdin ("" = /dev/null)
};

/// How a program ended.
struct ProgramResult {
  /// Its exit status; 128 + N when killed by signal N; 127 when the program
  /// was not found (as a shell reports it).
  int exit_code = 0;
  std::string out;  ///< stdout when captured
  std::string err;  ///< stderr, trailing newlines and spaces removed
};

/// Runs argv[0] (looked up on PATH) with argv and waits for it. Throws
/// Error{Io} when the child cannot be made (fork/exec resources, temp files);
/// a missing program is exit_code 127 with err "NAME: command not found".
ProgramResult run_program(const std::vector<std::string>& argv, const ProgramOptions& opts = {});

/// run_program() with stdout captured and `input` on stdin; throws Error{Io}
/// "`CMD` failed (exit N): STDERR" unless the exit code is 0 or one of `ok_codes`.
ProgramResult run_program_or_throw(const std::vector<std::string>& argv, const std::vector<int>& ok_codes = {},
                                   std::string_view input = {});

/// "mcopy -i /dev/sdb1 ::/ /tmp/x" for messages (arguments joined by spaces).
std::string command_line(const std::vector<std::string>& argv);

}  // namespace piprov
