#include "cli/write_options.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <cstdio>
#include <iostream>

#include "core/error.hpp"
#include "core/units.hpp"

namespace piprov::cli {
namespace {

/// The default confirmation: the summary and a y/N question on the terminal.
bool ask_on_terminal(const std::string& summary) {
  if (!::isatty(STDIN_FILENO))
    throw Error(ErrorKind::Usage, "no terminal to ask for confirmation on: pass --yes to write without asking");
  std::fprintf(stderr, "%s\nContinue? Everything on the target will be lost. [y/N] ", summary.c_str());
  std::fflush(stderr);
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes" || answer == "YES";
}

double rate(std::uint64_t bytes, double seconds) { return seconds > 0 ? static_cast<double>(bytes) / seconds : 0; }

}  // namespace

void add_write_options(CLI::App* cmd, image::WriteOptions& o, ProgressMode& progress) {
  cmd->add_option("IMAGE", o.image,
                  "Image file: .img, .xz, .gz, .bz2, .zst, .lz4 or a .zip holding one image "
                  "(detected by content)")
      ->required();
  cmd->add_option("DEVICE", o.target,
                  "Whole disk (/dev/sdX, /dev/loopN; see 'piprov devices'); write also takes a regular file")
      ->required();
  cmd->add_flag_callback(
      "--no-verify", [&o] { o.verify = false; },
      "Skip reading the target back and comparing (verify is on by default)");
  cmd->add_flag("-y,--yes", o.assume_yes, "Do not ask for confirmation (needed without a terminal)");
  cmd->add_flag("--unmount", o.unmount, "Unmount the target's mounted partitions first (they are listed)");
  cmd->add_flag("--overwrite", o.overwrite,
                "Allow replacing an existing non-empty regular file (never one under /etc, /usr, /boot, ...)");
  cmd->add_option("--sha256", o.sha256, "Expected SHA-256 (hex) of the IMAGE file as downloaded");
  cmd->add_option("--sha256-file", o.sha256_file, "SHA256SUMS file listing the IMAGE file's name")
      ->check(CLI::ExistingFile);
  add_progress_option(cmd, progress);
  cmd->add_option("--threads", o.threads, "xz decoder threads (default: all cores)")->check(CLI::Range(0u, 256u));
  o.confirm = ask_on_terminal;
}

void add_progress_option(CLI::App* cmd, ProgressMode& mode) {
  cmd->add_option_function<std::string>(
         "--progress", [&mode](const std::string& s) { mode = parse_progress_mode(s); },
         "Progress on stderr: auto (tty when stderr is a terminal), tty, plain, json, none")
      ->type_name("MODE");
}

ProgressMode resolve_on_stderr(ProgressMode mode) { return resolve_progress_mode(mode, ::isatty(STDERR_FILENO)); }

std::string write_summary(const image::WriteResult& r) {
  std::string s = fmt::format("wrote {} ({} {}) to {} in {} ({})", format_bytes(r.bytes_written), r.format,
                              format_bytes(r.input_bytes), r.target, format_duration(r.write_seconds),
                              format_mib_s(rate(r.bytes_written, r.write_seconds)));
  if (r.verified)
    s += fmt::format("; verified in {} ({})", format_duration(r.verify_seconds),
                     format_mib_s(rate(r.bytes_written, r.verify_seconds)));
  else
    s += "; not verified (--no-verify)";
  if (!r.sha256.empty()) s += "; SHA-256 ok";
  s += "; XXH3-128 " + r.xxh3_128;
  return s;
}

}  // namespace piprov::cli
