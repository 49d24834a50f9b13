#include "image/verify.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <xxhash.h>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "core/hashing.hpp"
#include "core/units.hpp"
#include "core/write_guard.hpp"
#include "image/image_fs.hpp"
#include "image/image_reader.hpp"
#include "image/pipeline.hpp"
#include "image/range_reader.hpp"
#include "image/reader_feed.hpp"
#include "image/skip_filter.hpp"
#include "image/source.hpp"
#include "image/write_targets.hpp"

namespace piprov::image {
namespace {

constexpr std::size_t kChunk = 4u << 20;
/// Read-back: requests of 4 MiB (dd's bs=4M), several in flight (measured:
/// docs/write.md "Verify"), so the device always has the next one queued.
constexpr ReadPlan kReadback{.read_bytes = 4u << 20, .depth = 4};

struct MismatchAt {
  std::uint64_t offset;
};

/// Hashes the bytes fed to it (in stream order, gaps allowed) chunk by chunk
/// and compares each chunk's hash with `expected` when the next chunk begins
/// or at finish(). Throws MismatchAt{chunk start}.
class ChunkCursor {
 public:
  explicit ChunkCursor(const ChunkHashes& expected) : expected_(expected), state_(XXH3_createState(), XXH3_freeState) {}
  void feed(std::span<const std::byte> data, std::uint64_t offset) {
    while (!data.empty()) {
      const std::size_t i = static_cast<std::size_t>(offset / expected_.chunk_bytes);
      if (i != index_) start(i);
      const auto n = static_cast<std::size_t>(
          std::min<std::uint64_t>(data.size(), (i + 1) * std::uint64_t{expected_.chunk_bytes} - offset));
      XXH3_128bits_update(state_.get(), data.data(), n);
      data = data.subspan(n);
      offset += n;
    }
  }
  void finish() { start(kNone); }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  void start(std::size_t i) {
    if (index_ != kNone) {
      XXH128_hash_t h = XXH3_128bits_digest(state_.get());
      if (index_ >= expected_.hashes.size() || std::pair{h.low64, h.high64} != expected_.hashes[index_])
        throw MismatchAt{index_ * std::uint64_t{expected_.chunk_bytes}};
    }
    index_ = i;
    XXH3_128bits_reset(state_.get());
  }
  const ChunkHashes& expected_;
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state_;
  std::size_t index_ = kNone;
};

/// Why a disk piprov provisioned differs from its image on purpose, when the
/// first difference is where that happens: the MBR disk identifier (bytes
/// 440-443, renewed per disk) or the GPT header/entries (LBA 1-33 at 512 B).
std::string identity_hint(std::uint64_t at, std::span<const std::byte> first_chunk) {
  auto has = [&](std::size_t off, std::string_view sig) {
    return first_chunk.size() >= off + sig.size() && std::memcmp(first_chunk.data() + off, sig.data(), sig.size()) == 0;
  };
  if (!has(510, "\x55\xaa")) return "";  // no MBR (a protective one for GPT): not a partitioned disk image
  if (at >= 440 && at < 444)
    return "; bytes 440-443 are the MBR disk identifier: if piprov provision wrote this disk, it renewed it "
           "after the verified write (and then edited the boot partition), so the disk differs from the image there "
           "by design";
  if (at >= 512 && at < 34 * 512 && has(512, "EFI PART"))
    return "; this is the GPT header or partition table: if piprov provision wrote this disk, it renewed its "
           "GUIDs, so the disk differs there by design";
  return "";
}

}  // namespace

std::pair<std::uint64_t, std::uint64_t> chunk_hash(const void* data, std::size_t len) {
  XXH128_hash_t h = XXH3_128bits(data, len);
  return {h.low64, h.high64};
}

std::pair<std::uint64_t, std::uint64_t> written_chunk_hash(const std::byte* data, std::size_t len, std::uint64_t offset,
                                                           const std::vector<ByteRange>& skipped) {
  if (skipped.empty()) return chunk_hash(data, len);
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> st(XXH3_createState(), XXH3_freeState);
  XXH3_128bits_reset(st.get());
  for_each_written(offset, len, skipped, [&](std::uint64_t b, std::uint64_t e) {
    XXH3_128bits_update(st.get(), data + (b - offset), static_cast<std::size_t>(e - b));
  });
  XXH128_hash_t h = XXH3_128bits_digest(st.get());
  return {h.low64, h.high64};
}

void hash_as_written(Xxh3_128& h, const std::byte* data, std::size_t len, std::uint64_t offset,
                     const std::vector<ByteRange>& skipped) {
  static constexpr std::array<std::byte, 65536> kZeroBlock{};
  std::uint64_t at = offset;
  auto zeros = [&h](std::uint64_t n) {
    for (std::uint64_t k = 0; k < n; k += kZeroBlock.size())
      h.update({kZeroBlock.data(), static_cast<std::size_t>(std::min<std::uint64_t>(kZeroBlock.size(), n - k))});
  };
  for_each_written(offset, len, skipped, [&](std::uint64_t b, std::uint64_t e) {
    zeros(b - at);
    h.update({data + (b - offset), static_cast<std::size_t>(e - b)});
    at = e;
  });
  zeros(offset + len - at);
}

ReadbackWaits verify_readback(const TargetInfo& t, const std::string& image, unsigned threads,
                              std::uint64_t image_bytes, const ChunkHashes& expected, const ProgressSink& sink) {
  UniqueFd fd = open_target_for_read(t);
  ProgressEvent tmpl;
  tmpl.target = t.path;
  const std::uint64_t to_read = image_bytes - bytes_within(expected.skipped, 0, image_bytes);
  ProgressPhase progress(sink, Phase::Verify, static_cast<double>(to_read), ProgressUnit::Bytes, tmpl);
  std::uint64_t done = 0;
  // Only the written ranges are read, each through read_range(); the written
  // bytes of each chunk are hashed as they come (written_chunk_hash()'s
  // concatenation) and compared once the chunk's last written byte is in.
  ReadPlan plan = kReadback;
  plan.read_bytes = std::max<std::size_t>(1, plan.read_bytes / expected.chunk_bytes) * expected.chunk_bytes;
  ChunkCursor chunk(expected);
  ReadbackWaits waits;
  try {
    for_each_written(0, image_bytes, expected.skipped, [&](std::uint64_t b, std::uint64_t e) {
      RangeWaits w = read_range(
          fd.get(), t, b, e - b,
          [&](std::span<const std::byte> data, std::uint64_t offset) {
            chunk.feed(data, offset);
            done += data.size();
            progress.update(static_cast<double>(done));
          },
          plan);
      waits.for_device += w.for_device;
      waits.for_hashing += w.for_consumer;
    });
    chunk.finish();
  } catch (const MismatchAt& m) {
    progress.end();
    // Name the exact byte: decode the image again and compare from that chunk.
    compare_with_image(t, image, threads, {}, m.offset, !expected.skipped.empty());
    throw Error(ErrorKind::Verify, fmt::format("{} read back differently at the chunk at byte offset {} but matched "
                                               "on a second read: the device returns unstable data",
                                               t.path, m.offset));
  }
  progress.end();
  if (done != to_read) throw_target_too_short(t, done);
  return waits;
}

namespace {

/// Copies the image's bytes over the device's in the ranges that were never
/// written, so they compare equal. `dev` and `img` hold [offset, offset + n).
void mask_unwritten(std::byte* dev, const std::byte* img, std::uint64_t offset, std::size_t n,
                    const std::vector<ByteRange>& skipped) {
  for (const ByteRange& r : skipped) {
    const std::uint64_t b = std::max(r.begin, offset), e = std::min(r.end, offset + n);
    if (b < e) std::memcpy(dev + (b - offset), img + (b - offset), e - b);
  }
}

/// With --full: when the first difference is free space that piprov write
/// skips, where a disk without discard keeps its old bytes.
std::string free_space_hint(std::uint64_t at, const std::vector<ByteRange>& skippable) {
  for (const ByteRange& r : skippable)
    if (at >= r.begin && at < r.end)
      return "; this byte is free space of the image's file system, which piprov write skips: a disk without discard "
             "keeps its old data there (piprov verify without --full does not compare it; piprov write --full "
             "overwrites it)";
  return "";
}

[[noreturn]] void differs(const TargetInfo& t, const std::string& image, const std::byte* img, const std::byte* dev,
                          std::size_t i, std::uint64_t offset, std::span<const std::byte> first_chunk,
                          const std::string& hint) {
  const std::uint64_t at = offset + i;
  // The "renewed by provision" hint only for a disk that has a partition table itself.
  const bool dev_mbr = first_chunk.size() >= 512 && dev[510] == std::byte{0x55} && dev[511] == std::byte{0xaa};
  if (!dev_mbr) first_chunk = {};
  throw ErrorAt(ErrorKind::Verify,
                fmt::format("verify failed: {} differs from {} at byte offset {} (0x{:x}, {}): "
                            "expected 0x{:02x}, read 0x{:02x}{}",
                            t.path, image, at, at, format_bytes(at), std::to_integer<unsigned>(img[i]),
                            std::to_integer<unsigned>(dev[i]), identity_hint(at, first_chunk) + hint),
                at);
}

}  // namespace

VerifyResult compare_with_image(const TargetInfo& t, const std::string& image, unsigned threads,
                                const ProgressSink& sink, std::uint64_t from, bool skip_free) {
  auto start = std::chrono::steady_clock::now();
  // A random-access image: the free map first, then only the blocks compared
  // are decoded (docs/write.md "Decoding only what is written"); a sequential
  // one is decoded whole, the filter deciding on the stream as the write's did.
  std::unique_ptr<ImageReader> reader = open_image_reader(image, threads);
  std::unique_ptr<Source> src;
  std::unique_ptr<SkipFilter> filter;
  std::unique_ptr<ReaderFeed> feed;
  std::optional<std::uint64_t> size;
  const PartitionTable table = read_partition_table(*reader, std::nullopt);
  if (!reader->random_access()) {
    reader.reset();
    src = open_source(image, threads, false);
  }
  const std::optional<std::uint64_t> known = reader ? std::optional(reader->size()) : src->size();
  // An image cut short (also before it was compressed) is refused, as write refuses it.
  if (from == 0)
    check_complete_image(table, known, src ? src->format() : reader->format(), image, "nothing was compared");
  if (reader) {
    size = reader->size();
    filter = std::make_unique<SkipFilter>(
        [&reader](std::span<std::byte> out, std::uint64_t offset) { reader->read_at(out, offset); }, *size, table);
    feed = std::make_unique<ReaderFeed>(*reader, skip_free ? &filter->map() : nullptr, threads);
  } else {
    size = src->size();
    filter =
        std::make_unique<SkipFilter>(table);  // the write's decisions: masked out unless --full, named in a mismatch
  }
  if (size && t.capacity && *size > t.capacity)
    throw Error(ErrorKind::Verify, fmt::format("{} ({}) is smaller than the image {} ({}): it cannot hold it", t.path,
                                               format_bytes(t.capacity), image, format_bytes(*size)));
  UniqueFd fd = open_target_for_read(t);
  AlignedBuffer dev(kChunk);
  Xxh3_128 whole;
  ProgressPhase progress(sink, Phase::Verify, static_cast<double>(size.value_or(0)));
  auto produce = [&](std::span<std::byte> buf, std::uint64_t offset) {
    if (feed) return feed->fill(buf, offset);
    const std::size_t n = src->read_full(buf);
    filter->decide({buf.data(), n}, offset);  // the same decisions as the write's
    return n;
  };
  auto fraction = [&](std::uint64_t at) {
    if (feed) return static_cast<double>(at) / static_cast<double>(std::max<std::uint64_t>(1, *size));
    return static_cast<double>(src->input().consumed()) /
           static_cast<double>(std::max<std::uint64_t>(1, src->input().size()));
  };
  std::uint64_t total =
      run_pipeline(4, kChunk, produce, [&](AlignedBuffer& buf, std::size_t len, std::uint64_t offset) {
        // The stream hash as the write computes it: skipped free space as zeros (not with --full).
        const std::vector<ByteRange> gaps =
            skip_free ? filter->map().skipped_in(offset, len) : std::vector<ByteRange>{};
        if (feed && feed->wholly_skipped(offset, len)) {  // never decoded, never written: nothing to compare
          hash_as_written(whole, nullptr, len, offset, gaps);
          progress.update(static_cast<double>(offset + len), fraction(offset + len));
          return;
        }
        hash_as_written(whole, buf.data(), len, offset, gaps);
        if (offset + len > from) {
          std::size_t got = read_target_at(fd.get(), t, dev.span(), len, offset);
          std::size_t skip = offset >= from ? 0 : static_cast<std::size_t>(from - offset);
          std::size_t n = std::min(got, len);
          if (skip_free) mask_unwritten(dev.data(), buf.data(), offset, n, filter->map().skipped_in(offset, n));
          if (std::memcmp(buf.data() + skip, dev.data() + skip, n > skip ? n - skip : 0) != 0) {
            std::size_t i = skip;
            while (i < n && buf.data()[i] == dev.data()[i]) ++i;
            differs(t, image, buf.data(), dev.data(), i, offset,
                    offset == 0 ? std::span<const std::byte>(buf.data(), len) : std::span<const std::byte>(),
                    skip_free ? "" : free_space_hint(offset + i, filter->map().skipped_in(offset, n)));
          }
          if (got < len) throw_target_too_short(t, offset + got);
        }
        progress.update(static_cast<double>(offset + len), fraction(offset + len));
      });
  progress.end();
  VerifyResult r;
  r.image = image;
  r.target = t.path;
  r.format = to_string(feed ? reader->format() : src->format());
  r.bytes = total;
  r.skipped_bytes = skip_free ? filter->map().skipped_bytes() : 0;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.xxh3_128 = whole.hex();
  return r;
}

VerifyResult verify_image(const std::string& image, const std::string& target, unsigned threads,
                          const ProgressSink& progress, bool full) {
  TargetInfo t;
  // The guard refuses everything but a whole disk or a regular file.
  const WriteSubject s = check_write(target, WriteIntent::VerifyTarget);
  t.path = target;
  t.is_file = s.kind == TargetKind::RegularFile;
  if (t.is_file) {
    t.logical_block = 4096;
  } else {
    t.disk = s.disk;
    t.capacity = t.disk.size_bytes;
    t.logical_block = t.disk.logical_block_size ? t.disk.logical_block_size : 512;
  }
  return compare_with_image(t, image, threads, progress, 0, !full);
}

}  // namespace piprov::image
