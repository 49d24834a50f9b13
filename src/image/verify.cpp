#include "image/verify.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <xxhash.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <span>
#include <string_view>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "core/hashing.hpp"
#include "core/units.hpp"
#include "image/pipeline.hpp"
#include "image/range_reader.hpp"
#include "image/source.hpp"

namespace piprov::image {
namespace {

constexpr std::size_t kChunk = 4u << 20;
/// Read-back: requests of 4 MiB (dd's bs=4M), several in flight (measured:
/// docs/write.md "Verify"), so the device always has the next one queued.
constexpr ReadPlan kReadback{.read_bytes = 4u << 20, .depth = 4};

struct MismatchAt {
  std::uint64_t offset;
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

ReadbackWaits verify_readback(const TargetInfo& t, const std::string& image, unsigned threads,
                              std::uint64_t image_bytes, const ChunkHashes& expected, const ProgressSink& sink) {
  UniqueFd fd = open_target_for_read(t);
  ProgressEvent tmpl;
  tmpl.target = t.path;
  ProgressPhase progress(sink, Phase::Verify, static_cast<double>(image_bytes), ProgressUnit::Bytes, tmpl);
  std::uint64_t done = 0;
  // Pieces are whole chunks (the last may be short), so each chunk's hash is one call.
  ReadPlan plan = kReadback;
  plan.read_bytes = std::max<std::size_t>(1, plan.read_bytes / expected.chunk_bytes) * expected.chunk_bytes;
  RangeWaits waits;
  try {
    waits = read_range(
        fd.get(), t, 0, image_bytes,
        [&](std::span<const std::byte> data, std::uint64_t offset) {
          // One hash per chunk: every chunk matching means the whole stream matches.
          for (std::size_t at = 0; at < data.size(); at += expected.chunk_bytes) {
            std::size_t n = std::min(expected.chunk_bytes, data.size() - at);
            std::size_t i = static_cast<std::size_t>((offset + at) / expected.chunk_bytes);
            if (i >= expected.hashes.size() || chunk_hash(data.data() + at, n) != expected.hashes[i])
              throw MismatchAt{offset + at};
          }
          done += data.size();
          progress.update(static_cast<double>(done));
        },
        plan);
  } catch (const MismatchAt& m) {
    progress.end();
    // Name the exact byte: decode the image again and compare from that chunk.
    compare_with_image(t, image, threads, {}, m.offset);
    throw Error(ErrorKind::Verify, fmt::format("{} read back differently at the chunk at byte offset {} but matched "
                                               "on a second read: the device returns unstable data",
                                               t.path, m.offset));
  }
  progress.end();
  if (done != image_bytes) throw_target_too_short(t, done);
  return {waits.for_device, waits.for_consumer};
}

VerifyResult compare_with_image(const TargetInfo& t, const std::string& image, unsigned threads,
                                const ProgressSink& sink, std::uint64_t from) {
  auto start = std::chrono::steady_clock::now();
  auto src = open_source(image, threads, false);
  if (auto sz = src->size(); sz && t.capacity && *sz > t.capacity)
    throw Error(ErrorKind::Verify, fmt::format("{} ({}) is smaller than the image {} ({}): it cannot hold it", t.path,
                                               format_bytes(t.capacity), image, format_bytes(*sz)));
  UniqueFd fd = open_target_for_read(t);
  AlignedBuffer dev(kChunk);
  Xxh3_128 whole;
  ProgressPhase progress(sink, Phase::Verify, static_cast<double>(src->size().value_or(0)));
  std::uint64_t total = run_pipeline(
      4, kChunk, [&](std::span<std::byte> buf, std::uint64_t) { return src->read_full(buf); },
      [&](AlignedBuffer& buf, std::size_t len, std::uint64_t offset) {
        whole.update({buf.data(), len});
        if (offset + len > from) {
          std::size_t got = read_target_at(fd.get(), t, dev.span(), len, offset);
          std::size_t skip = offset >= from ? 0 : static_cast<std::size_t>(from - offset);
          std::size_t n = std::min(got, len);
          if (std::memcmp(buf.data() + skip, dev.data() + skip, n > skip ? n - skip : 0) != 0) {
            std::size_t i = skip;
            while (i < n && buf.data()[i] == dev.data()[i]) ++i;
            std::uint64_t at = offset + i;
            throw ErrorAt(ErrorKind::Verify,
                          fmt::format("verify failed: {} differs from {} at byte offset {} (0x{:x}, {}): "
                                      "expected 0x{:02x}, read 0x{:02x}{}",
                                      t.path, image, at, at, format_bytes(at), std::to_integer<unsigned>(buf.data()[i]),
                                      std::to_integer<unsigned>(dev.data()[i]),
                                      identity_hint(at, offset == 0 ? std::span<const std::byte>(buf.data(), len)
                                                                    : std::span<const std::byte>())),
                          at);
          }
          if (got < len) throw_target_too_short(t, offset + got);
        }
        progress.update(static_cast<double>(offset + len),
                        static_cast<double>(src->input().consumed()) /
                            static_cast<double>(std::max<std::uint64_t>(1, src->input().size())));
      });
  progress.end();
  VerifyResult r;
  r.image = image;
  r.target = t.path;
  r.format = to_string(src->format());
  r.bytes = total;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.xxh3_128 = whole.hex();
  return r;
}

VerifyResult verify_image(const std::string& image, const std::string& target, unsigned threads,
                          const ProgressSink& progress) {
  TargetInfo t;
  std::string parent;
  switch (classify_path(target, &parent)) {
    case TargetKind::Partition:
      throw Error(ErrorKind::Usage, fmt::format("{} is a partition; give the whole disk ({}) instead", target, parent));
    case TargetKind::Missing: throw Error(ErrorKind::Usage, target + " does not exist");
    case TargetKind::Other: throw Error(ErrorKind::Usage, target + " is neither a whole disk nor a regular file");
    case TargetKind::RegularFile:
      t.path = target;
      t.is_file = true;
      t.logical_block = 4096;
      break;
    case TargetKind::WholeDisk: {
      t.path = target;
      t.disk = probe_disk(target);
      t.capacity = t.disk.size_bytes;
      t.logical_block = t.disk.logical_block_size ? t.disk.logical_block_size : 512;
      break;
    }
  }
  return compare_with_image(t, image, threads, progress);
}

}  // namespace piprov::image
