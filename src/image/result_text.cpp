#include "image/result_text.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "core/error.hpp"
#include "core/units.hpp"

namespace piprov::image {
namespace {

double result_rate(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds : 0;
}

std::string verified_text(const TargetOutcome& t) {
  if (!t.verified) return "not verified (--no-verify)";
  const std::uint64_t compared = t.bytes_written - t.bytes_skipped;
  return fmt::format("verified in {} ({}){}", format_duration(t.verify_seconds),
                     format_mib_s(result_rate(compared, t.verify_seconds)),
                     t.bytes_skipped ? ", the " + format_bytes(compared) + " written (skipped free space not compared)"
                                     : std::string());
}

/// "(41.0 MiB/s)", or with skipped free space "(1.2 GiB written at 41.0 MiB/s)":
/// the rate of the bytes that went to the disk, not of the image's size.
std::string write_rate_text(const TargetOutcome& t) {
  const std::uint64_t written = t.bytes_written - std::min(t.bytes_skipped, t.bytes_written);
  const std::string r = format_mib_s(result_rate(written, t.write_seconds));
  return t.bytes_skipped ? fmt::format("({} written at {})", format_bytes(written), r) : "(" + r + ")";
}

/// "  /dev/loop3: ok, written in 3.1 s (103.5 MiB/s), verified in ..." or "  /dev/loop4: FAILED: writing ... at byte
/// offset N ...".
std::string target_line(const TargetOutcome& t) {
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
std::string speed_lines(const WriteResult& r) {
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

std::string write_summary(const WriteResult& r) {
  std::string s;
  if (r.targets.size() == 1) {
    const auto& t = r.targets.front();
    s = fmt::format("wrote the {} image ({} {}) to {} in {} {}; {}", format_bytes(r.image_bytes), r.format,
                    format_bytes(r.input_bytes), t.target, format_duration(t.write_seconds), write_rate_text(t),
                    verified_text(t));
    if (!r.sha256.empty()) s += "; SHA-256 ok";
    s += "; XXH3-128 " + r.xxh3_128;
    s += "\n" + r.skip_line;
    if (!r.decode_line.empty()) s += "\n" + r.decode_line;
    if (!t.usb.note.empty()) s += "\nusb: " + t.target + ": " + t.usb.note;
    return s + speed_lines(r);
  }
  s = fmt::format("wrote the {} image ({} {}) to {} of {} targets in {}{}; XXH3-128 {}", format_bytes(r.image_bytes),
                  r.format, format_bytes(r.input_bytes), r.succeeded(), r.targets.size(),
                  format_duration(r.write_seconds), r.sha256.empty() ? "" : "; SHA-256 ok", r.xxh3_128);
  s += "\n" + r.skip_line;
  if (!r.decode_line.empty()) s += "\n" + r.decode_line;
  for (const auto& t : r.targets) s += "\n" + target_line(t);
  if (!r.speed.slowest_target.empty()) s += "\nslowest target: " + r.speed.slowest_target;
  return s + speed_lines(r);
}

int write_exit_code(const WriteResult& r) { return r.failed() ? static_cast<int>(ErrorKind::Partial) : 0; }

std::string verify_summary(const VerifyResult& r) {
  std::string s = fmt::format("verified: {} matches {} ({}, {}) in {} ({}); XXH3-128 {}\n", r.target, r.image,
                              format_bytes(r.bytes), r.format, format_duration(r.seconds),
                              format_mib_s(result_rate(r.bytes - r.skipped_bytes, r.seconds)), r.xxh3_128);
  if (r.skipped_bytes)
    s += fmt::format("compared {} written; {} free space not compared (as piprov write skips it; --full compares it)\n",
                     format_bytes(r.bytes - r.skipped_bytes), format_bytes(r.skipped_bytes));
  return s;
}

}  // namespace piprov::image
