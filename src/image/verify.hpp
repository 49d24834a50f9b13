#pragma once
// Read-back verification. After a write, the target is read with O_DIRECT and
// each chunk's XXH3-128 is compared with the hash taken while writing; on a
// mismatch the image is decoded again up to that chunk so the first differing
// byte is named. `piprov verify IMAGE DEVICE` (its own step, no hashes kept)
// decodes the image and compares it with the device: the ranges write
// writes, or every byte (full).
// A mismatch reports the first bad offset.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/hashing.hpp"
#include "core/progress.hpp"
#include "image/scan.hpp"
#include "image/target.hpp"

namespace piprov::image {

/// XXH3-128 of each `chunk_bytes` chunk of the stream (the last may be
/// short), over the chunk's bytes outside `skipped` (the free space the write
/// skipped: never written, so never compared).
struct ChunkHashes {
  std::size_t chunk_bytes = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> hashes;  ///< (low64, high64)
  std::vector<ByteRange> skipped;                               ///< sorted; empty = every byte was written
};

/// XXH3-128 of `data` as (low64, high64).
std::pair<std::uint64_t, std::uint64_t> chunk_hash(const void* data, std::size_t len);

/// XXH3-128 of the bytes of data[0, len) (at stream offset `offset`) outside
/// `skipped` (sorted, any extent), concatenated; chunk_hash() when none is.
std::pair<std::uint64_t, std::uint64_t> written_chunk_hash(const std::byte* data, std::size_t len, std::uint64_t offset,
                                                           const std::vector<ByteRange>& skipped);

/// Feeds the stream hash (the summary's XXH3-128) the bytes data[0, len) at
/// stream `offset` as written: the ranges of `skipped` (sorted) as zeros, so
/// a write that decoded them and one that did not (docs/write.md "Decoding
/// only what is written") give the same hash. `data` may be null when all of
/// it is skipped.
void hash_as_written(Xxh3_128& h, const std::byte* data, std::size_t len, std::uint64_t offset,
                     const std::vector<ByteRange>& skipped);

/// Seconds the read-back spent waiting, per side (read_range(): reader
/// threads issuing O_DIRECT reads, the caller hashing and comparing).
struct ReadbackWaits {
  double for_device = 0;   ///< the comparer had no piece read yet (the device is the limit)
  double for_hashing = 0;  ///< the readers had no free buffer, per reader (hashing is the limit)
};

/// Reads the first `image_bytes` of the target back, except the ranges
/// `expected.skipped` (not written, not read), and compares each chunk's
/// written bytes' hash with `expected` (image/range_reader.hpp, once per
/// written range: 4 reads of 4 MiB in flight while the caller hashes). Progress: the "verify" phase with
/// ProgressEvent::target = t.path. Throws Error{Verify} naming the first bad
/// byte offset (found by decoding `image` again), Error{Io} on read errors
/// (errno, offset).
ReadbackWaits verify_readback(const TargetInfo& t, const std::string& image, unsigned threads,
                              std::uint64_t image_bytes, const ChunkHashes& expected, const ProgressSink& progress);

/// What verify_image() found.
struct VerifyResult {
  std::string image, target, format;
  std::uint64_t bytes = 0;          ///< image bytes (those compared: bytes - skipped_bytes)
  std::uint64_t skipped_bytes = 0;  ///< free space not compared (0 with --full)
  double seconds = 0;
  std::string xxh3_128;  ///< XXH3-128 of the image stream
};

/// Decodes `image` and compares it with the target from byte `from` on
/// (0 = everything). `skip_free`: not the free space a write skips (the
/// SkipFilter decides on this decode as on the write's: the same ranges).
/// Throws Error{Verify} "DEVICE differs from IMAGE at byte offset N" (exit
/// 4), Error{Verify} when the target is shorter, Error{Usage} for a bad
/// image, Error{Io} for read errors.
VerifyResult compare_with_image(const TargetInfo& t, const std::string& image, unsigned threads,
                                const ProgressSink& progress, std::uint64_t from = 0, bool skip_free = false);

/// `piprov verify --json`: {"schema": "piprov.verify/2", "image", "target", "format", "bytes",
/// "compared_bytes", "skipped_bytes", "seconds", "bytes_per_second", "xxh3_128", "match": true}
/// (docs/write.md "Output").
nlohmann::json verify_result_json(const VerifyResult& r);

/// `piprov verify --json` when verify_image() threw `e`: {"schema":
/// "piprov.verify/2", "image", "target", "match": false, "error": {"kind"
/// ("verify", "io", "usage", ...), "exit_code", "message", "offset" (the
/// first differing byte, or where a read failed; null when unknown)}}.
nlohmann::json verify_failure_json(const std::string& image, const std::string& target, const Error& e);

/// `piprov verify IMAGE DEVICE`: checks the target like write does (whole
/// disk or regular file; partitions refused) but only reads it. Compares
/// what `piprov write` writes: without `full`, not the file systems' free
/// space (docs/write.md "Free space").
VerifyResult verify_image(const std::string& image, const std::string& target, unsigned threads,
                          const ProgressSink& progress = {}, bool full = false);

}  // namespace piprov::image
