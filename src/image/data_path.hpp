#pragma once
// Where the bytes of a write come from (docs/write.md "Free space" and
// "Decoding only what is written"): the stream decoder with the skip filter
// deciding on each buffer (sequential formats), or the reader feed, which
// decodes only the blocks that overlap written ranges (random-access
// images). Internal to src/image.
#include <cstdint>
#include <functional>
#include <optional>

#include "image/fanout.hpp"
#include "image/reader_feed.hpp"
#include "image/skip_filter.hpp"
#include "image/source.hpp"

namespace piprov::image {

/// Where the fan-out's bytes come from: the stream decoder with the skip
/// filter deciding on it, or the reader feed (only the blocks written).
struct DataPath {
  ProduceFn produce;
  NoDataFn no_data;                   ///< ranges that go to the writers without their bytes
  std::function<double()> fraction;   ///< of IMAGE read so far, for progress
  std::optional<std::uint64_t> size;  ///< decoded bytes when known
};

/// The stream decoder as a data path: each buffer goes through `filter`
/// (may be null: --full) before any consumer sees it. `src` and `filter`
/// must outlive the result.
DataPath stream_path(Source& src, SkipFilter* filter);

/// The reader feed as a data path (`size`: the image's decoded bytes). `feed`
/// must outlive the result.
DataPath feed_path(ReaderFeed& feed, std::uint64_t size);

}  // namespace piprov::image
