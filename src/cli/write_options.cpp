#include "cli/write_options.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace piprov::cli {

bool ask_on_terminal(const std::string& summary) {
  if (!::isatty(STDIN_FILENO))
    throw Error(ErrorKind::Usage, "no terminal to ask for confirmation on: pass --yes to write without asking");
  std::fprintf(stderr, "%s\nContinue? Everything on the target will be lost. [y/N] ", summary.c_str());
  std::fflush(stderr);
  std::string answer;
  if (!std::getline(std::cin, answer)) {
    std::fputc('\n', stderr);
    throw_if_cancelled("at the confirmation: nothing was written");  // Ctrl-C: exit 130, as everywhere else
    return false;
  }
  return answer == "y" || answer == "Y" || answer == "yes" || answer == "YES";
}

namespace {

double rate(std::uint64_t bytes, double seconds) { return seconds > 0 ? static_cast<double>(bytes) / seconds : 0; }

}  // namespace

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

namespace {

std::string verified_text(const image::TargetOutcome& t) {
  if (!t.verified) return "not verified (--no-verify)";
  const std::uint64_t compared = t.bytes_written - t.bytes_skipped;
  return fmt::format("verified in {} ({}){}", format_duration(t.verify_seconds),
                     format_mib_s(rate(compared, t.verify_seconds)),
                     t.bytes_skipped ? ", the " + format_bytes(compared) + " written (skipped free space not compared)"
                                     : std::string());
}

/// "(41.0 MiB/s)", or with skipped free space "(1.2 GiB written at 41.0 MiB/s)":
/// the rate of the bytes that went to the disk, not of the image's size.
std::string write_rate_text(const image::TargetOutcome& t) {
  const std::uint64_t written = t.bytes_written - std::min(t.bytes_skipped, t.bytes_written);
  const std::string r = format_mib_s(rate(written, t.write_seconds));
  return t.bytes_skipped ? fmt::format("({} written at {})", format_bytes(written), r) : "(" + r + ")";
}

/// "  /dev/loop3: ok, written in 3.1 s (103.5 MiB/s), verified in ..." or "  /dev/loop4: FAILED: writing ... at byte
/// offset N ...".
std::string target_line(const image::TargetOutcome& t) {
  if (!t.ok) {  // the offset is named once: most messages already say "at byte offset N"
    const bool named = !t.failed_offset || t.error.find(std::to_string(*t.failed_offset)) != std::string::npos;
    return fmt::format("  {}: FAILED{}: {}", t.target,
                       named ? std::string() : fmt::format(" at byte offset {}", *t.failed_offset), t.error);
  }
  std::string s = fmt::format("  {}: ok, written in {} {}, {}", t.target, format_duration(t.write_seconds),
                              write_rate_text(t), verified_text(t));
  if (!t.usb.note.empty()) s += "; " + t.usb.note;
  return s;
}

/// The "speed:" line (verdict with waits, decoding) and, when verified, the "verify:" line.
std::string speed_lines(const image::WriteResult& r) {
  const auto& sp = r.speed;
  std::string s = fmt::format("\nspeed: {}; {}", sp.verdict_line, sp.decode_note);
  bool verified = false;
  for (const auto& t : r.targets) verified = verified || t.verified;
  if (verified)
    s += fmt::format(
        "\nverify: {}: reads kept the comparer waiting {:.1f} s, hashing kept the reads waiting {:.1f} s",
        sp.verify_waited_for_hashing_seconds > sp.verify_waited_for_device_seconds ? "hash-bound" : "device-bound",
        sp.verify_waited_for_device_seconds, sp.verify_waited_for_hashing_seconds);
  return s;
}

}  // namespace

std::string write_summary(const image::WriteResult& r) {
  std::string s;
  if (r.targets.size() == 1) {
    const auto& t = r.targets.front();
    s = fmt::format("wrote {} ({} {}) to {} in {} {}; {}", format_bytes(r.image_bytes), r.format,
                    format_bytes(r.input_bytes), t.target, format_duration(t.write_seconds), write_rate_text(t),
                    verified_text(t));
    if (!r.sha256.empty()) s += "; SHA-256 ok";
    s += "; XXH3-128 " + r.xxh3_128;
    s += "\n" + r.skip_line;
    if (!r.decode_line.empty()) s += "\n" + r.decode_line;
    if (!t.usb.note.empty()) s += "\nusb: " + t.target + ": " + t.usb.note;
    return s + speed_lines(r);
  }
  s = fmt::format("wrote {} ({} {}) to {} of {} targets in {}{}; XXH3-128 {}", format_bytes(r.image_bytes), r.format,
                  format_bytes(r.input_bytes), r.succeeded(), r.targets.size(), format_duration(r.write_seconds),
                  r.sha256.empty() ? "" : "; SHA-256 ok", r.xxh3_128);
  s += "\n" + r.skip_line;
  if (!r.decode_line.empty()) s += "\n" + r.decode_line;
  for (const auto& t : r.targets) s += "\n" + target_line(t);
  if (!r.speed.slowest_target.empty()) s += "\nslowest target: " + r.speed.slowest_target;
  return s + speed_lines(r);
}

/// The process exit code for a finished write: 0, or 5 when some targets failed.
int write_exit_code(const image::WriteResult& r) { return r.failed() ? static_cast<int>(ErrorKind::Partial) : 0; }

void print_target_errors(const image::WriteResult& r) {
  std::fflush(stdout);
  for (const auto& t : r.targets)
    if (!t.ok) std::fprintf(stderr, "piprov: error: %s\n", t.error.c_str());
}

}  // namespace piprov::cli
