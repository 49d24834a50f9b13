#include "cli/write_options.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <iostream>

#include "core/cancel.hpp"
#include "core/error.hpp"

namespace piprov::cli {

/// The default confirmation: the summary and a y/N question on the terminal.
bool ask_on_terminal(const std::string& summary) {
  if (!::isatty(STDIN_FILENO))
    throw Error(ErrorKind::Usage, "no terminal to ask for confirmation on: pass --yes to write without asking");
  std::fprintf(stderr, "%s\nContinue? Everything on the target will be lost. [y/N] ", summary.c_str());
  std::fflush(stderr);
  // Wait for the line with poll(2), checking the cancel flag every 200 ms: a Ctrl-C that lands between the
  // question and a blocking read(2) would otherwise interrupt nothing, and the read would wait forever.
  for (;;) {
    if (cancel_requested()) {
      std::fputc('\n', stderr);
      throw_if_cancelled("at the confirmation: nothing was written");
    }
    pollfd in{STDIN_FILENO, POLLIN, 0};
    const int n = ::poll(&in, 1, 200);
    if (n > 0 || (n < 0 && errno != EINTR)) break;
  }
  std::string answer;
  if (!std::getline(std::cin, answer)) {
    std::fputc('\n', stderr);
    throw_if_cancelled("at the confirmation: nothing was written");  // Ctrl-C: exit 130, as everywhere else
    return false;
  }
  return answer == "y" || answer == "Y" || answer == "yes" || answer == "YES";
}

void add_write_options(CLI::App* cmd, image::WriteOptions& o, ProgressMode& progress) {
  cmd->add_option("IMAGE", o.image,
                  "Image file: .img, .xz, .gz, .bz2, .zst, .lz4 or a .zip holding one image "
                  "(detected by content)")
      ->required();
  cmd->add_option("DEVICE", o.targets,
                  cmd->get_name() == "write"
                      ? "Whole disk(s) (/dev/sdX, /dev/loopN; see 'piprov devices') or regular files, written from one "
                        "decode"
                      : "Whole disk(s) (/dev/sdX, /dev/loopN; see 'piprov devices'), written from one decode")
      ->required();
  cmd->add_flag_callback(
      "--no-verify", [&o] { o.verify = false; },
      "Skip reading the target back and comparing (verify is on by default)");
  cmd->add_flag("-y,--yes", o.assume_yes, "Do not ask for confirmation (needed without a terminal)");
  cmd->add_flag("--unmount", o.unmount, "Unmount the target's mounted partitions first (they are listed)");
  if (cmd->get_name() == "write")  // provision writes whole disks only: a file is never its target
    cmd->add_flag("--overwrite", o.overwrite,
                  "Allow replacing an existing regular file, even an empty one (never one under /etc, /usr, /boot, "
                  "...)");
  cmd->add_option("--sha256", o.sha256, "Expected SHA-256 (hex) of the IMAGE file as downloaded");
  cmd->add_option("--sha256-file", o.sha256_file, "SHA256SUMS file listing the IMAGE file's name")
      ->check(CLI::ExistingFile);
  add_progress_option(cmd, progress);
  cmd->add_option("--threads", o.threads, "xz decoder threads (default: all cores)")->check(CLI::Range(0u, 256u));
  cmd->add_flag("--full", o.full,
                "Write every byte (default: skip the free space of the image's ext2/3/4 and FAT file systems)");
  o.confirm = ask_on_terminal;
}

void add_progress_option(CLI::App* cmd, ProgressMode& mode) {
  cmd->add_option_function<std::string>(
         "--progress", [&mode](const std::string& s) { mode = parse_progress_mode(s); },
         "Progress on stderr: auto (tty when stderr is a terminal), tty, plain, json, none")
      ->type_name("MODE");
}

ProgressMode resolve_on_stderr(ProgressMode mode) { return resolve_progress_mode(mode, ::isatty(STDERR_FILENO)); }

void print_target_errors(const image::WriteResult& r) {
  std::fflush(stdout);
  for (const auto& t : r.targets)
    if (!t.ok) std::fprintf(stderr, "piprov: error: %s\n", t.error.c_str());
}

}  // namespace piprov::cli
