#include "image/speed.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace piprov::image {

std::string decode_note(const Source& src) {
  if (src.format() == Format::Raw) return "raw: not compressed, nothing to decode";
  if (src.format() != Format::Xz) return to_string(src.format()) + ": decoded on 1 core (libarchive)";
  const std::uint64_t b = src.blocks();
  const unsigned n = src.threads();
  std::string s = fmt::format("{} block{}: decoded on {} {}", b, b == 1 ? "" : "s", n, n == 1 ? "core" : "threads");
  if (b <= 1) s += " (xz -T0 or --block-size makes blocks that decode in parallel)";
  return s;
}

SpeedReport speed_report(const Source& src, double decoder_waited, const std::vector<TargetOutcome>& targets) {
  SpeedReport r = waits_report(decoder_waited, targets);
  r.xz_blocks = src.format() == Format::Xz ? src.blocks() : 0;
  r.usable_threads = src.threads();
  r.decode_note = decode_note(src);
  return r;
}

SpeedReport waits_report(double decoder_waited, const std::vector<TargetOutcome>& targets) {
  SpeedReport r;
  r.decoder_waited_seconds = decoder_waited;
  double slowest = -1;
  for (const auto& t : targets) {
    r.writers_waited_seconds = std::max(r.writers_waited_seconds, t.waited_for_decoder_seconds);
    r.verify_waited_for_device_seconds =
        std::max(r.verify_waited_for_device_seconds, t.verify_waited_for_device_seconds);
    r.verify_waited_for_hashing_seconds =
        std::max(r.verify_waited_for_hashing_seconds, t.verify_waited_for_hashing_seconds);
    if (t.bytes_written > 0 && t.write_seconds > slowest) {
      slowest = t.write_seconds;
      r.slowest_target = t.target;
    }
  }
  const bool decode_bound = r.writers_waited_seconds > r.decoder_waited_seconds;
  r.verdict = decode_bound ? "decode-bound" : "device-bound";
  r.verdict_line =
      fmt::format("{}: the writer{} waited {:.1f} s for the decoder, the decoder waited {:.1f} s for {}", r.verdict,
                  targets.size() == 1 ? "" : "s", r.writers_waited_seconds, r.decoder_waited_seconds,
                  targets.size() == 1 ? "the writer" : "the slowest writer (" + r.slowest_target + ")");
  return r;
}

void apply_feed(SpeedReport& r, const FeedStats& s, Format f, unsigned threads, std::size_t targets) {
  r.usable_threads = threads;
  r.xz_blocks = f == Format::Xz ? s.units : 0;
  const std::string on = fmt::format("{} {}", threads, threads == 1 ? "thread" : "threads");
  if (f == Format::Raw) {
    r.decode_note =
        fmt::format("raw: not compressed, read on {} ({} of {} 4 MiB pieces; {} wholly in free space not read)", on,
                    s.units_decoded, s.units, s.units_not_decoded);
    if (r.verdict == "decode-bound") r.verdict = "read-bound";
    r.verdict_line = fmt::format(
        "{}: the writer{} waited {:.1f} s for the image file to be read, the reader waited "
        "{:.1f} s for {}",
        r.verdict, targets == 1 ? "" : "s", r.writers_waited_seconds, r.decoder_waited_seconds,
        targets == 1 ? "the writer" : "the slowest writer (" + r.slowest_target + ")");
    return;
  }
  r.decode_note = fmt::format("{} {}: decoded on {} ({} of them; {} wholly in free space not decoded)", s.units,
                              f == Format::Zstd ? "frames" : "blocks", on, s.units_decoded, s.units_not_decoded);
}

}  // namespace piprov::image
