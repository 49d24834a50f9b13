#pragma once
// `piprov write IMAGE DEVICE...` as a library call, also used by `provision`.
// Rules: formats by magic, one decoder feeding every target (each buffer is
// shared read-only by all writers), one writer thread per target with
// O_DIRECT|O_EXCL aligned writes, first MiB written last, fdatasync,
// BLKRRPART, read-back verify of every target in parallel, safety checks on
// every target before the first byte of any, progress, Ctrl-C. A target that
// fails is dropped and reported; the others finish (Etcher's multi-write does
// the same; rpi-imager writes one card at a time, rpi-imager issue 380).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/write_guard.hpp"
#include "image/image_reader.hpp"
#include "image/partition_table.hpp"
#include "image/reader_feed.hpp"
#include "image/skip_filter.hpp"
#include "image/target.hpp"
#include "image/usb_link.hpp"

namespace piprov::image {

/// Everything `piprov write` takes. Paths are as the user typed them.
struct WriteOptions {
  std::string image;  ///< IMAGE: .img/.xz/.gz/.bz2/.zst/.lz4/.zip (detected by content)
  /// DEVICE...: one or more whole disks (/dev/sdX, /dev/loopN) or regular files
  /// (created/overwritten). The same disk twice (also through a by-id link) is refused.
  std::vector<std::string> targets;
  bool verify = true;       ///< read back with O_DIRECT and compare (--no-verify turns off)
  bool assume_yes = false;  ///< --yes: do not ask for confirmation
  bool unmount = false;     ///< --unmount: unmount the targets' mounted partitions first
  bool overwrite = false;   ///< --overwrite: replace an existing regular file, even an empty one (--yes alone does not)
  std::string sha256;       ///< --sha256 HEX: expected SHA-256 of the IMAGE file itself ("" = none)
  std::string sha256_file;  ///< --sha256-file SHA256SUMS: look IMAGE's name up there ("" = none)
  /// Receives the "write" and "verify" phases (bytes) of each target, with
  /// ProgressEvent::target set to the target's path. Called from the writer and
  /// verifier threads, one call at a time (write_image() serialises them); empty
  /// = no one listens.
  ProgressSink progress;
  /// Asked once with a multi-line summary listing every disk (model/size/
  /// transport, what will be lost) before anything is written, unless
  /// assume_yes. Returns true to go on. When empty and !assume_yes,
  /// write_image() refuses (Error{Usage}).
  std::function<bool(const std::string& summary)> confirm;
  unsigned threads = 0;  ///< xz decoder threads; 0 = number of online CPUs
  /// --full: write every byte. Default: skip the free space of the image's
  /// ext2/3/4 and FAT file systems (docs/write.md "Free space").
  bool full = false;
  /// Return the result even when every target failed (`write --json` prints
  /// it, then reports no_target_written()); default: throw that error.
  bool return_when_all_fail = false;
  /// The write guard's intent for every target (core/write_guard.hpp):
  /// nullopt = by its kind (WholeDiskImage for a block device, ImageFile for
  /// a file); provision: ProvisionDisk (whole disks only).
  std::optional<WriteIntent> intent;
};

/// How one target fared. Seconds are wall-clock.
struct TargetOutcome {
  std::string target;  ///< as given
  bool ok = false;     ///< written (and verified when asked)
  /// Why it failed (when !ok): Io (write/flush error, device full, unplugged),
  /// Verify (read-back mismatch), Usage (image larger than this disk).
  ErrorKind error_kind = ErrorKind::Io;
  std::string error;                           ///< one line naming the target, offset and state ("" when ok)
  std::optional<std::uint64_t> failed_offset;  ///< byte offset of the failed write or first bad byte
  std::uint64_t bytes_written = 0;             ///< image bytes accepted by the target (all when ok)
  std::uint64_t bytes_skipped = 0;        ///< of those, free space not written (WriteResult::skipped_bytes when ok)
  std::uint64_t bytes_discarded = 0;      ///< of the skipped, discarded on the device (BLKDISCARD)
  double write_seconds = 0;               ///< from the first byte to the first MiB synced
  double verify_seconds = 0;              ///< read-back and compare (0 when not verified)
  bool verified = false;                  ///< read-back matched every byte
  double waited_for_decoder_seconds = 0;  ///< write phase: this writer idle, no decoded buffer ready
  double verify_waited_for_device_seconds = 0;   ///< verify: the comparer idle, waiting for the device read
  double verify_waited_for_hashing_seconds = 0;  ///< verify: the reader idle, waiting for the comparer
  std::vector<std::string> unmounted;            ///< "DEV on DIR" unmounted because of --unmount
  std::vector<std::string> partitions;           ///< partition nodes present after BLKRRPART (block devices)
  UsbLink usb;                                   ///< block devices on USB
};

/// What limited the speed (item "say what limited the speed"): per phase, the
/// time the writers waited for the decoder and the decoder waited for the
/// writers, and what the decoder could use.
struct SpeedReport {
  std::uint64_t xz_blocks = 0;        ///< blocks in the xz index (0 when IMAGE is not .xz)
  unsigned usable_threads = 1;        ///< decoder threads that could run (1 for a 1-block xz and non-xz formats)
  std::string decode_note;            ///< e.g. "1 block: decoded on 1 core", "412 blocks: decoded on 2 threads"
  double writers_waited_seconds = 0;  ///< write phase: the longest any writer waited for the decoder
  double decoder_waited_seconds = 0;  ///< write phase: the decoder waited for the slowest writer (no free buffer)
  double verify_waited_for_device_seconds = 0;   ///< verify phase: longest comparer wait for device reads
  double verify_waited_for_hashing_seconds = 0;  ///< verify phase: longest reader wait for the comparer
  std::string slowest_target;                    ///< the target whose write took longest ("" when none was written)
  std::string verdict;                           ///< "decode-bound" or "device-bound"
  /// e.g. "decode-bound: writers waited 9.1 s for the decoder, the decoder waited 0.2 s for the writers"
  std::string verdict_line;
};

/// What write_image() did.
struct WriteResult {
  std::string image;
  std::string format;                  ///< "xz", "gzip", "bzip2", "zstd", "lz4", "zip", "raw"
  unsigned decoder_threads = 1;        ///< threads the decoder used (xz MT; 1 otherwise)
  std::uint64_t input_bytes = 0;       ///< size of the IMAGE file (compressed)
  std::uint64_t image_bytes = 0;       ///< uncompressed image bytes (the decoded stream)
  double write_seconds = 0;            ///< decode + write + first MiB + fdatasync, until the last target is done
  double verify_seconds = 0;           ///< until the last target's verify is done (0 when not verified)
  std::string xxh3_128;                ///< XXH3-128 of the uncompressed stream, 32 hex digits
  std::string sha256;                  ///< SHA-256 of the IMAGE file when checked ("" otherwise)
  std::vector<TargetOutcome> targets;  ///< one per WriteOptions::targets, same order
  SpeedReport speed;
  bool full = false;                      ///< --full: nothing was skipped
  std::uint64_t skipped_bytes = 0;        ///< free space not written (and not verified)
  std::vector<PartitionSkip> partitions;  ///< what the filter found per partition (empty with --full)
  std::string skip_note;                  ///< why the whole image was written ("" when partitions were read)
  std::string skip_line;                  ///< "wrote 1.2 GiB of 3.5 GiB; skipped 2.3 GiB free in writable"
  /// Read through the random-access reader (issue 27): the free map first,
  /// then only the blocks overlapping written ranges (docs/write.md
  /// "Decoding only what is written"). False: the stream was decoded whole.
  bool random_access = false;
  FeedStats decode;         ///< with random_access: units decoded and not
  std::string decode_line;  ///< "decoded 150 of 412 xz blocks (...); 262 ... not decoded", or why it was sequential

  /// Targets with ok = true / false.
  std::size_t succeeded() const;
  std::size_t failed() const;
};

class PreparedWrite;

/// The checks of a write, before anything is written or asked: IMAGE's line in
/// --sha256-file, the write guard for every target (each disk inspected
/// once), the image not on a target, no disk twice, --sha256 of a file on
/// disk (IMAGE read once more, only then), IMAGE opened (source and reader),
/// its partition table read once, a cut image refused, the image not larger
/// than a target. Throws as write_image() before its first byte.
PreparedWrite prepare_write(const WriteOptions& options);

/// The write of `p`: the one confirmation listing every disk (unless
/// assume_yes), then what write_image() does after its checks. Returns and
/// throws as write_image().
WriteResult run_write(PreparedWrite p);

/// A write checked and opened by prepare_write(), not started: what a caller
/// (provision) reads of the image before run_write(). Move-only.
class PreparedWrite {
 public:
  PreparedWrite(PreparedWrite&&) noexcept;
  PreparedWrite& operator=(PreparedWrite&&) noexcept;
  ~PreparedWrite();
  const WriteOptions& options() const;
  /// The image's partition table as written (read_partition_table(reader, nullopt); scheme None when none).
  const PartitionTable& partition_table() const;
  /// The image, read in place (image_reader.hpp): a sequential one decodes from its start.
  ImageReader& reader();

 private:
  struct State;
  explicit PreparedWrite(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
  friend PreparedWrite prepare_write(const WriteOptions& options);
  friend WriteResult run_write(PreparedWrite p);
};

/// Performs the whole `piprov write` (run_write(prepare_write(options))): safety checks on every target (the
/// write guard core/write_guard.hpp: whole disk or regular file; never a
/// system disk; mounted only with unmount; read-only refused; image size vs
/// target size; duplicates refused), ALL before the first byte of ANY target,
/// one confirmation listing every disk, then one decode feeding one writer
/// thread per target (O_DIRECT|O_EXCL aligned writes, first MiB last,
/// fdatasync, BLKRRPART), optional SHA-256 check of the input and read-back
/// verify of the targets in parallel.
/// Returns when at least one target succeeded; the failed ones are in
/// targets[] with ok = false (exit code 5, ErrorKind::Partial, is the
/// caller's to give).
/// Throws piprov::Error: Usage (refused before writing; a message with one line
/// per refused target; bad/unsupported/corrupt input; not confirmed), and when
/// every target failed the kind of the first target's failure: Io
/// (device/file error, device full; message names errno and byte offset),
/// Verify (read-back or SHA-256 mismatch; names the first bad offset); with
/// several targets the message has one line per target. Interrupted (Ctrl-C;
/// says how far it got).
WriteResult write_image(const WriteOptions& options);

/// The writing half of write_image() for a source already open as a
/// random-access reader (`piprov clone`, issue 28: a disk read up to the end
/// of its last partition): `targets` checked by check_targets()
/// (write_targets.hpp), sized and confirmed by the caller; the reader's bytes
/// [0, reader.size()) go through a ReaderFeed (only what `filter`'s map does
/// not skip is read; nullptr: every byte) to one writer per target (first MiB
/// last, fdatasync, BLKRRPART), then read back and compared when o.verify.
/// o.image names the source in messages; the IMAGE-only options (sha256,
/// full, confirm) are not used. Throws as write_image() after its checks.
WriteResult write_from_reader(const WriteOptions& o, std::vector<TargetInfo> targets, ImageReader& reader,
                              SkipFilter* filter);

/// The error write_image() throws when every target failed: the first
/// target's kind, one line per target. Call only when r.succeeded() == 0.
Error no_target_written(const WriteResult& r);

/// What write_image() throws when targets are refused before anything is
/// written: Error{Usage} with one line per refused target (and, with several,
/// "nothing was written to any target"), and each target's own line for
/// --json (issue 29).
class TargetsRefused : public Error {
 public:
  TargetsRefused(const std::string& message, std::vector<std::string> per_target)
      : Error(ErrorKind::Usage, message), per_target_(std::move(per_target)) {}
  /// By target (WriteOptions::targets order): why it was refused, "" when it was not.
  const std::vector<std::string>& per_target() const noexcept { return per_target_; }

 private:
  std::vector<std::string> per_target_;
};

/// `piprov write --json`: the result as one JSON object, schema
/// "piprov.write/3" (docs/write.md "Output"): the stream fields, written and
/// skipped bytes with the per-partition "partitions", a "targets" array (one
/// object per target) and "speed"; rates in bytes per second, 0 when not
/// measured.
nlohmann::json write_result_json(const WriteResult& r);

/// `piprov write --json` when write_image() threw `e` (a refusal, bad input,
/// an interrupt, every target failed): {"schema": "piprov.write/3", "image",
/// "succeeded": 0, "failed": N, "error": {"kind", "exit_code", "message",
/// "offset"}, "targets": [{"target", "ok": false, "error": the same}]}; for
/// TargetsRefused each target's "error" has its own message (a target not
/// refused: "not written: another target was refused").
nlohmann::json write_failure_json(const WriteOptions& o, const Error& e);

/// One target's outcome as JSON (an element of "targets").
nlohmann::json target_outcome_json(const TargetOutcome& t);

}  // namespace piprov::image
