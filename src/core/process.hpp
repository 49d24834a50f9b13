#pragma once
// Running an external program (e2fsck, resize2fs, sfdisk, losetup, debugfs)
// without a shell: posix_spawnp(3), safe while other threads run.
// (boot/fat_tools and eeprom/live have older runners of their own, with an
// mtools environment and a single argument; new callers use this one.)
#include <string>
#include <string_view>
#include <vector>

namespace piprov {

struct ProgramResult {
  int exit_code = 0;  ///< 127 when the program is not found; 128 + signal when killed
  std::string out;    ///< standard output
  std::string err;    ///< standard error, trailing white space removed
};

/// Runs argv[0] (PATH lookup) with `input` on its stdin (/dev/null when
/// empty), capturing stdout and stderr. Throws Error{Io} only when the child
/// cannot be created.
ProgramResult run_program(const std::vector<std::string>& argv, std::string_view input = {});

/// run_program(); throws Error{Io} "`CMD` failed (exit N): STDERR" unless
/// the exit code is 0 or one of `ok_codes`.
ProgramResult run_program_or_throw(const std::vector<std::string>& argv, const std::vector<int>& ok_codes = {},
                                   std::string_view input = {});

}  // namespace piprov
