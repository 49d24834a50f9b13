#pragma once
// `piprov write IMAGE DEVICE` as a library call, also used by `provision`.
// Rules: formats by magic, O_DIRECT|O_EXCL aligned writes, first MiB written
// last, fdatasync, BLKRRPART, verify, safety checks, progress, Ctrl-C. Data
// flows Source -> bounded queue -> Target (pipeline.hpp).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/progress.hpp"

namespace piprov::image {

/// Everything `piprov write` takes. Paths are as the user typed them.
struct WriteOptions {
  std::string image;        ///< IMAGE: .img/.xz/.gz/.bz2/.zst/.lz4/.zip (detected by content)
  std::string target;       ///< DEVICE: a whole disk (/dev/sdX, /dev/loopN) or a regular file (created/overwritten)
  bool verify = true;       ///< read back with O_DIRECT and compare (--no-verify turns off)
  bool assume_yes = false;  ///< --yes: do not ask for confirmation
  bool unmount = false;     ///< --unmount: unmount the target's mounted partitions first
  bool overwrite = false;   ///< --overwrite: replace an existing non-empty regular file (--yes alone does not)
  std::string sha256;       ///< --sha256 HEX: expected SHA-256 of the IMAGE file itself ("" = none)
  std::string sha256_file;  ///< --sha256-file SHA256SUMS: look IMAGE's name up there ("" = none)
  /// Receives the "write" and "verify" phases (bytes); empty = no one listens.
  ProgressSink progress;
  /// Asked with a multi-line summary (model/size/transport, what will be lost)
  /// before anything is written, unless assume_yes. Returns true to go on.
  /// When empty and !assume_yes, write_image() refuses (Error{Usage}).
  std::function<bool(const std::string& summary)> confirm;
  unsigned threads = 0;  ///< xz decoder threads; 0 = number of online CPUs
};

/// What write_image() did. Seconds are wall-clock.
struct WriteResult {
  std::string image;
  std::string target;
  std::string format;                   ///< "xz", "gzip", "bzip2", "zstd", "lz4", "zip", "raw"
  unsigned decoder_threads = 1;         ///< threads the decoder used (xz MT; 1 otherwise)
  std::uint64_t input_bytes = 0;        ///< size of the IMAGE file (compressed)
  std::uint64_t bytes_written = 0;      ///< uncompressed image bytes written to the target
  double write_seconds = 0;             ///< decode + write + first MiB + fdatasync
  double verify_seconds = 0;            ///< read-back and compare (0 when not verified)
  std::string xxh3_128;                 ///< XXH3-128 of the uncompressed stream, 32 hex digits
  std::string sha256;                   ///< SHA-256 of the IMAGE file when checked ("" otherwise)
  bool verified = false;                ///< read-back matched every byte
  std::vector<std::string> unmounted;   ///< "DEV on DIR" unmounted because of --unmount
  std::vector<std::string> partitions;  ///< partition nodes present after BLKRRPART (block devices)
};

/// Performs the whole `piprov write`: safety checks on the target (whole disk
/// or regular file; never a system disk; mounted only with unmount; read-only
/// refused; image size vs target size), confirmation, decode + write on two
/// threads with O_DIRECT|O_EXCL aligned writes, the first MiB last, fdatasync,
/// BLKRRPART (waiting for partition nodes), optional SHA-256 check of the input
/// and read-back verify.
/// Throws piprov::Error: Usage (refused before writing, bad/unsupported/corrupt
/// input, not confirmed), Io (device/file error, device full; message names
/// errno and byte offset), Verify (read-back or SHA-256 mismatch; names the
/// first bad offset), Interrupted (Ctrl-C; says how far it got).
WriteResult write_image(const WriteOptions& options);

/// `piprov write --json`: the result as one JSON object (schema in docs/write.md
/// "Output"); rates in bytes per second, 0 when not measured.
nlohmann::json write_result_json(const WriteResult& r);

}  // namespace piprov::image
