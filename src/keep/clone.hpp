#pragma once
// `piprov clone SOURCE TARGET...` (issue 28; docs/keep.md "Moving a node to a
// USB SSD"): a disk copied onto one or more disks. SOURCE is read like
// `piprov backup` reads a disk (image/disk_reader.hpp, image/skip_filter.hpp,
// image/reader_feed.hpp): its partition table and its ext2/3/4 and FAT
// allocation maps first, then only the used blocks up to the end of its last
// partition, on several threads; they go to every TARGET through `piprov
// write`'s writers (image::write_from_reader(): first MiB last, fdatasync,
// read-back verify). Then on each TARGET (clone_target.hpp): a GPT's backup
// header moved to its end, the last partition and its ext2/3/4 grown to fill
// it, a new disk identifier with PARTUUID= rewritten in cmdline.txt and
// /etc/fstab (as `piprov provision` does), and `boot check`. The node keeps
// its identity (host name, machine-id, SSH host keys): only the disk's
// identifiers change, so SOURCE and TARGET can be attached together. A
// mounted SOURCE is copied file by file instead (clone_live.hpp).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "boot/check.hpp"
#include "core/board.hpp"
#include "core/error.hpp"
#include "core/progress.hpp"
#include "image/disk_identity.hpp"
#include "image/skip_filter.hpp"
#include "image/write.hpp"
#include "provision/cloud_init.hpp"
#include "provision/identity.hpp"

namespace piprov::keep {

struct CloneOptions {
  std::string source;                ///< a whole disk that is not mounted, or a raw image file
  std::vector<std::string> targets;  ///< whole disks (the write guard, WriteIntent::ProvisionDisk)
  bool assume_yes = false;           ///< --yes: do not ask
  bool unmount = false;              ///< --unmount: unmount the TARGETs' mounted partitions first
  bool force = false;                ///< --force: copy a file system marked with errors (read in full)
  bool verify = true;                ///< read every TARGET back and compare (--no-verify turns off)
  unsigned threads = 0;              ///< reader threads (0 = online CPUs)
  /// --new-identity: each TARGET becomes a node of its own (a fleet from a golden node): provision's identity
  /// options (`identity`, at least one required) give it a cloud-init NoCloud seed with a new instance-id, and its
  /// /etc/machine-id is emptied (machine-id(5): a new one is made at the next boot). Default: the node's own.
  bool new_identity = false;
  provision::IdentityOptions identity;
  /// --board: the Pi the TARGETs are for; boot check resolves what its firmware loads (Raspberry Pi
  /// documentation, config.txt: kernel_2712.img on a Pi 5). nullopt: default_board(), named in check_line.
  std::optional<PiBoard> board;
  ProgressSink progress;  ///< write's phases (write, verify) per TARGET
  /// Asked once with every TARGET described unless assume_yes; empty and
  /// !assume_yes: refused (Error{Usage}).
  std::function<bool(const std::string& summary)> confirm;
};

/// What clone did on one TARGET after the write.
struct CloneTarget {
  std::string target;
  bool ok = false;
  ErrorKind error_kind = ErrorKind::Io;
  std::string error;           ///< when !ok: the write's or the failed step's error, and the disk's state
  image::TargetOutcome write;  ///< the write's outcome
  std::string grown;           ///< "partition 2 grown from A to B, its ext4 resized to fill it (resize2fs)", or why not
  image::DiskIdentity identity;        ///< old and new disk identifier and PARTUUIDs
  std::vector<std::string> rewritten;  ///< files whose PARTUUID= were rewritten ("cmdline.txt", "/etc/fstab")
  int partuuid_references = 0;
  bool checked = false;     ///< boot check ran (the boot partition holds config.txt or autoboot.txt)
  boot::CheckReport check;  ///< when checked
  /// "boot check (Raspberry Pi 5): OK ...", "boot check (Raspberry Pi 4B, assumed: no --board): OK ..." or why
  /// it did not run
  std::string check_line;
  std::optional<PiBoard> board;  ///< CloneOptions::board
  std::string source;            ///< the SOURCE disk: boot check warns when root= names an id it shares
  double steps_seconds = 0;      ///< grow + identity + check
  /// A live SOURCE (clone_live.hpp): per partition, how it was copied
  /// ("partition 2 (ext4 on /): made anew with its label, UUID and features; files copied with rsync -aHAXx").
  std::vector<std::string> copied;
  std::optional<provision::SeedPlan> seed;  ///< --new-identity: this TARGET's seed
  std::vector<std::string> seed_files;      ///< the seed's files written on the boot partition
  std::string identity_line;                ///< --new-identity: what was changed
};

struct CloneResult {
  std::string source;
  std::uint64_t source_bytes = 0;   ///< SOURCE's size
  std::uint64_t copy_bytes = 0;     ///< copied: up to the end of its last partition (all of it without a table)
  std::uint64_t read_bytes = 0;     ///< read from SOURCE
  std::uint64_t skipped_bytes = 0;  ///< free space neither read nor written
  image::TableScheme table = image::TableScheme::None;  ///< None: no table, copied whole
  double seconds = 0;                                   ///< from the first byte read to the last TARGET's last step
  std::string limit;                                    ///< "read-bound: ..." or "write-bound: ..."
  std::vector<image::PartitionSkip> partitions;
  std::string note;   ///< why SOURCE was copied in full ("" when its partitions were read)
  bool live = false;  ///< SOURCE was mounted: its mounted file systems were copied file by file (clone_live.hpp)
  image::WriteResult write;
  std::vector<CloneTarget> targets;  ///< one per CloneOptions::targets, same order
  std::size_t succeeded() const;
};

/// Clones SOURCE onto every TARGET. Refused before the first byte of any
/// TARGET (Error{Usage}, one line per TARGET refused): SOURCE also a TARGET
/// (the same disk, or the same file behind a loop device); a mounted SOURCE
/// clone_live.hpp cannot copy (check_live_source()); a TARGET the write guard refuses
/// (WriteIntent::ProvisionDisk: never the system disk, a whole disk only,
/// mounted only with unmount) or holding SOURCE (an image file on it); a
/// TARGET smaller than SOURCE's partitions' end (the message says by how
/// much); a file system marked with errors or needing journal recovery
/// unless `force`; not confirmed. A TARGET that fails (write, verify or a
/// later step) is reported in its CloneTarget, the others go on; throws the
/// first failure when none got through (Error{Io}, Verify, Usage, or
/// Interrupted after Ctrl-C: an interrupted write leaves a TARGET without its
/// first MiB, so it does not look bootable).
/// A mounted SOURCE (the system running from it) is copied file by file
/// (clone_live.hpp: result.live) instead of block by block.
CloneResult run_clone(const CloneOptions& o);

/// The summary: what was read, skipped and written, each TARGET's steps, what limited the speed.
std::string clone_summary(const CloneResult& r);

/// `piprov clone --json`: {"schema": "piprov.clone/1", "source", "source_bytes", "copy_bytes", "read_bytes",
/// "skipped_bytes", "table", "seconds", "limit", "note", "partitions": [...as backup], "targets": [{"target", "ok",
/// "error", "bytes_written", "bytes_skipped", "write_seconds", "verified", "grown", "disk_identity": {"label",
/// "old_id", "new_id", "partuuids"}, "rewritten", "partuuid_references", "boot_check": {"ran", "ok", "board",
/// "board_given", "summary", "findings"}}]}.
nlohmann::json clone_result_json(const CloneResult& r);

/// `piprov clone --json` when run_clone() threw `e`: {"schema", "source", "targets", "error": {"exit_code",
/// "message"}}.
nlohmann::json clone_failure_json(const CloneOptions& o, const Error& e);

/// The exit code of a finished clone: 5 (Partial) when a TARGET failed, else 1
/// when boot check found problems on one (boot::kCheckFailOn), else 0.
int clone_exit_code(const CloneResult& r);

}  // namespace piprov::keep
