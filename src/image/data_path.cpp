#include "image/data_path.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>

#include "image/target_writer.hpp"

namespace piprov::image {
namespace {

/// A block of zeros to compare with.
constexpr std::array<std::byte, 65536> kPathZeros{};

/// Whether every byte of `b` is zero (memcmp against kPathZeros: vectorised).
bool path_all_zero(std::span<const std::byte> b) {
  for (std::size_t at = 0; at < b.size(); at += kPathZeros.size())
    if (std::memcmp(b.data() + at, kPathZeros.data(), std::min(kPathZeros.size(), b.size() - at)) != 0) return false;
  return true;
}

}  // namespace

DataPath stream_path(Source& src, SkipFilter* filter) {
  DataPath p;
  p.size = src.size();
  p.fraction = [&src] {
    return static_cast<double>(src.input().consumed()) /
           static_cast<double>(std::max<std::uint64_t>(1, src.input().size()));
  };
  p.produce = [&src, filter](std::span<std::byte> b, std::uint64_t offset) {
    const std::size_t n = src.read_full(b);
    if (filter) filter->decide({b.data(), n}, offset);
    return n;
  };
  // A buffer of skipped free space that is all zeros goes to the consumers
  // without its bytes (the writers only discard it, the hasher adds zeros), so
  // its buffer is free at once and the decoder runs on through the free space
  // while the writers still write the data before it: a slow disk is not left
  // idle while the decoder crosses a large free area (docs/write.md "Free space").
  if (filter)
    p.no_data = [filter](std::span<const std::byte> b, std::uint64_t offset) {
      if (offset < kHeadBytes) return false;  // the held-back first MiB is copied from the buffer
      const auto gaps = filter->map().skipped_in(offset, b.size());
      return gaps.size() == 1 && gaps.front().begin == offset && gaps.front().end == offset + b.size() &&
             path_all_zero(b);
    };
  return p;
}

// A buffer wholly in skipped free space is neither decoded nor filled (it
// goes without its bytes; the hasher adds zeros).
DataPath feed_path(ReaderFeed& feed, std::uint64_t size) {
  DataPath p;
  p.size = size;
  auto done = std::make_shared<std::atomic<std::uint64_t>>(0);
  p.fraction = [done, size] {
    return static_cast<double>(done->load()) / static_cast<double>(std::max<std::uint64_t>(1, size));
  };
  p.produce = [&feed, done](std::span<std::byte> b, std::uint64_t offset) {
    const std::size_t n = feed.fill(b, offset);
    *done = offset + n;
    return n;
  };
  p.no_data = [&feed](std::span<const std::byte> b, std::uint64_t offset) {
    return feed.wholly_skipped(offset, b.size());
  };
  return p;
}

}  // namespace piprov::image
