#pragma once
// "What limited the speed" of a write: from the wait times the fan-out and
// the read-back measured, the xz block count and the targets' USB links.
// Internal to src/image.
#include <vector>

#include "image/reader_feed.hpp"
#include "image/source.hpp"
#include "image/write.hpp"

namespace piprov::image {

/// "1 block: decoded on 1 core", "412 blocks: decoded on 2 threads",
/// "gzip: decoded on 1 core (libarchive)", "raw: not compressed".
/// liblzma decodes blocks in parallel, never one block on several threads (xz(1) --threads).
std::string decode_note(const Source& src);

/// The report: the longest waits over the targets, the slowest target, and
/// the verdict: "decode-bound" when the writers waited longer for the decoder
/// than the decoder for the writers, else "device-bound". `decoder_waited`:
/// seconds the decoder had no free buffer.
SpeedReport speed_report(const Source& src, double decoder_waited, const std::vector<TargetOutcome>& targets);

/// speed_report() without a Source (a disk read through the reader feed:
/// `piprov clone`): the waits, the slowest target and the verdict only.
SpeedReport waits_report(double decoder_waited, const std::vector<TargetOutcome>& targets);

/// The report of a write through the reader feed (issue 27): the decode
/// note says how many blocks were decoded on how many threads ("412 blocks:
/// decoded on 2 threads (150 of them; 262 wholly in free space not
/// decoded)") and sets xz_blocks; for a raw image the pace-setter is the reading of the file,
/// not a decoder ("read-bound: the writer waited ... for the image file").
void apply_feed(SpeedReport& r, const FeedStats& s, Format f, unsigned threads, std::size_t targets);

}  // namespace piprov::image
