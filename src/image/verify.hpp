#pragma once
// Read-back verification. After a write, the target is read with O_DIRECT and
// each chunk's XXH3-128 is compared with the hash taken while writing; on a
// mismatch the image is decoded again up to that chunk so the first differing
// byte is named. `piprov verify IMAGE DEVICE` (its own step, no hashes kept)
// decodes the image and compares it with the device byte for byte.
// A mismatch reports the first bad offset.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/progress.hpp"
#include "image/target.hpp"

namespace piprov::image {

/// XXH3-128 of each `chunk_bytes` chunk of the stream (the last may be short).
struct ChunkHashes {
  std::size_t chunk_bytes = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> hashes;  ///< (low64, high64)
};

/// XXH3-128 of `data` as (low64, high64).
std::pair<std::uint64_t, std::uint64_t> chunk_hash(const void* data, std::size_t len);

/// Seconds the read-back spent waiting, per side (read_range(): reader
/// threads issuing O_DIRECT reads, the caller hashing and comparing).
struct ReadbackWaits {
  double for_device = 0;   ///< the comparer had no piece read yet (the device is the limit)
  double for_hashing = 0;  ///< the readers had no free buffer, per reader (hashing is the limit)
};

/// Reads the first `image_bytes` of the target back and compares each chunk's
/// hash with `expected` (image/range_reader.hpp: 4 reads of 4 MiB in flight
/// while the caller hashes). Progress: the "verify" phase with
/// ProgressEvent::target = t.path. Throws Error{Verify} naming the first bad
/// byte offset (found by decoding `image` again), Error{Io} on read errors
/// (errno, offset).
ReadbackWaits verify_readback(const TargetInfo& t, const std::string& image, unsigned threads,
                              std::uint64_t image_bytes, const ChunkHashes& expected, const ProgressSink& progress);

/// What verify_image() found.
struct VerifyResult {
  std::string image, target, format;
  std::uint64_t bytes = 0;  ///< image bytes compared
  double seconds = 0;
  std::string xxh3_128;  ///< XXH3-128 of the image stream
};

/// Decodes `image` and compares it with the target from byte `from` on
/// (0 = everything). Throws Error{Verify} "DEVICE differs from IMAGE at byte
/// offset N" (exit 4), Error{Verify} when the target is shorter, Error{Usage}
/// for a bad image, Error{Io} for read errors.
VerifyResult compare_with_image(const TargetInfo& t, const std::string& image, unsigned threads,
                                const ProgressSink& progress, std::uint64_t from = 0);

/// `piprov verify --json`: {"schema": "piprov.verify/1", "image", "target", "format", "bytes", "seconds",
/// "bytes_per_second", "xxh3_128", "match": true} (docs/write.md "Output").
nlohmann::json verify_result_json(const VerifyResult& r);

/// `piprov verify IMAGE DEVICE`: checks the target like write does (whole
/// disk or regular file; partitions refused) but only reads it.
VerifyResult verify_image(const std::string& image, const std::string& target, unsigned threads,
                          const ProgressSink& progress = {});

}  // namespace piprov::image
