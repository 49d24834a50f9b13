#pragma once
// `piprov backup DISK OUT` (issue 28; docs/keep.md "Backups"): a disk (or a
// raw image file) into an image file that `piprov write` takes. The disk is
// read like write reads an image (image/disk_reader.hpp, image/skip_filter.hpp,
// image/reader_feed.hpp): its partition table and its ext2/3/4 and FAT
// allocation maps first, then only the used blocks, on several threads; free
// space goes into OUT as zeros. OUT's name picks the format (keep/encoder.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/error.hpp"
#include "core/progress.hpp"
#include "image/reader_feed.hpp"
#include "image/skip_filter.hpp"
#include "keep/outside_partitions.hpp"

namespace piprov::keep {

struct BackupOptions {
  std::string disk;       ///< a whole disk (/dev/sdX) or a raw image file
  std::string out;        ///< .img, .img.xz, .img.zst, .img.gz
  unsigned threads = 0;   ///< readers and encoder threads (0 = online CPUs)
  bool replace = false;   ///< --yes: replace an existing OUT
  bool force = false;     ///< --force: back up a file system marked with errors / needing recovery
  bool shrink = false;    ///< --shrink: the last ext2/3/4 shrunk in the image (keep/shrink.hpp)
  ProgressSink progress;  ///< Phase::Write over the disk's bytes
};

struct BackupResult {
  std::string disk, out, format;
  std::uint64_t disk_bytes = 0;  ///< the disk's size (OUT's decoded size)
  std::uint64_t read_bytes = 0;  ///< bytes read from the disk
  /// Bytes not read: the 4 MiB pieces wholly in free space or outside every partition (zeros in
  /// OUT); read_bytes + skipped_bytes = disk_bytes (free space inside a piece that is read counts
  /// as read, not here).
  std::uint64_t skipped_bytes = 0;
  std::uint64_t unpartitioned_skipped_bytes = 0;  ///< of skipped_bytes, those outside every partition
  std::uint64_t unpartitioned_cut_bytes = 0;      ///< of those, in regions --shrink cut from the image (kCutByShrink)
  std::vector<OutsideRegion> outside;             ///< the space outside every partition (outside_partitions.hpp)
  std::uint64_t out_bytes = 0;                    ///< OUT's size
  std::uint64_t image_bytes = 0;                  ///< OUT's decoded size (disk_bytes unless --shrink cut it)
  std::string shrink_line;                        ///< --shrink: what was shrunk, and whether it grows back
  std::string sha256;                             ///< of OUT, as in OUT.sha256
  std::string sha256_file;                        ///< OUT.sha256
  double seconds = 0;
  double read_wait_seconds = 0;  ///< the encoder waited for the disk
  double encode_seconds = 0;     ///< compressing and writing OUT
  unsigned read_threads = 0, encode_threads = 0;
  std::string limit;  ///< "read-bound: ..." or "compress-bound: ..." or "write-bound: ..."
  std::vector<image::PartitionSkip> partitions;
  std::string note;  ///< SkipFilter::note(): why the whole disk was read
};

/// Backs DISK up into OUT. Refuses (Error{Usage}, nothing written): OUT
/// with another name (encoder.hpp), OUT on DISK itself (the same file, the
/// file behind a loop device DISK) or on a file system of one of DISK's
/// partitions, OUT refused by the write guard (check_output_file), an existing OUT or OUT.sha256 without `replace` (a
/// symlink OUT.sha256 is replaced by the rename, never followed), a DISK with a
/// mounted file system (a live backup is not supported: issue 28), a file
/// system marked with errors or needing journal recovery unless `force`.
/// OUT is written as a temporary file in OUT's directory (AtomicFile) and
/// renamed when complete; on any error or Ctrl-C it is removed. With
/// `shrink`, the used blocks first go into a sparse raw temporary file
/// beside OUT, which shrink_last_partition() cuts, and that is encoded. Throws Error{Io} (read or write
/// errors: a full output file system), Error{Interrupted}.
BackupResult run_backup(const BackupOptions& o);

/// The summary lines: what was read, skipped and written, the speed and what limited it.
std::string backup_summary(const BackupResult& r);

/// `piprov backup --json`: {"schema": "piprov.backup/1", "disk", "out", "format", "disk_bytes",
/// "read_bytes", "skipped_bytes", "unpartitioned_skipped_bytes", "out_bytes", "image_bytes", "shrink", "sha256",
/// "sha256_file", "seconds", "limit", "partitions": [{"number", "fs", "label", "size", "skipped_bytes",
/// "full_reason"}], "outside_partitions": [{"where", "offset", "size", "read", "why"}], "note"}.
nlohmann::json backup_result_json(const BackupResult& r);

/// `piprov backup --json` when the backup failed: {"schema", "disk", "out", "error": {"exit_code", "message"}}.
nlohmann::json backup_failure_json(const BackupOptions& o, const Error& e);

}  // namespace piprov::keep
