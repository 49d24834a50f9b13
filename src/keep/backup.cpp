// `piprov backup DISK OUT` (backup.hpp).
#include "keep/backup.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/atomic_file.hpp"
#include "core/blockdev.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "core/write_guard.hpp"
#include "image/disk_reader.hpp"
#include "image/ext_map.hpp"
#include "image/image_fs.hpp"
#include "keep/encoder.hpp"
#include "keep/shrink.hpp"
#include "keep/source_disk.hpp"

namespace piprov::keep {

namespace fs = std::filesystem;

namespace {

using BackupClock = std::chrono::steady_clock;

double backup_seconds_since(BackupClock::time_point t0) {
  return std::chrono::duration<double>(BackupClock::now() - t0).count();
}

/// A disk with a mounted file system is refused (its file systems change while they are read).
void refuse_mounted_source(const std::string& disk, const std::optional<WriteSubject>& s) {
  if (s && !s->mounted.empty())
    throw Error(ErrorKind::Usage,
                fmt::format("{} is in use ({}): piprov backup reads a disk that is not mounted, so that its file "
                            "systems do not change while they are read; unmount them (umount), or shut the node "
                            "down and back up its disk from another computer",
                            disk, fmt::join(s->mounted, ", ")));
}

/// Refuses OUT on DISK: the same file, the file behind a loop device DISK, or a file system on
/// DISK or one of its partitions. Runs before the write guard, whose "detach it first" fix for a
/// loop device's backing file would remove DISK itself.
void refuse_out_on_source(const std::string& disk, const std::optional<WriteSubject>& source, const std::string& out) {
  std::error_code ec;
  fs::path dir = fs::absolute(out, ec).parent_path();
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0) return;  // the guard names a missing directory
  const std::string fix = "write OUT to another disk, or to another file name";
  struct stat ost {};
  const bool out_exists = ::stat(out.c_str(), &ost) == 0;
  if (source && !source->disk.backing_file.empty() && out_exists) {
    struct stat bst {};
    if (::stat(source->disk.backing_file.c_str(), &bst) == 0 && bst.st_dev == ost.st_dev && bst.st_ino == ost.st_ino)
      throw Error(ErrorKind::Usage,
                  fmt::format("{} is the backing file of {}, the disk being backed up: the backup would overwrite "
                              "what it reads; {}",
                              out, disk, fix));
  }
  if (source && !source->disk.name.empty()) {
    if (disk_of_devno(dst.st_dev) == source->disk.name)
      throw Error(ErrorKind::Usage,
                  fmt::format("{} is on {}, the disk being backed up: the backup would overwrite what it reads; "
                              "write it to another disk",
                              out, disk));
    return;
  }
  struct stat sst {};
  if (::stat(disk.c_str(), &sst) == 0 && out_exists && sst.st_dev == ost.st_dev && sst.st_ino == ost.st_ino)
    throw Error(
        ErrorKind::Usage,
        fmt::format("{} is {} itself: the backup would overwrite what it reads; give OUT another name", out, disk));
}

std::string backup_limit(const BackupResult& r) {
  if (r.read_wait_seconds >= r.encode_seconds)
    return fmt::format("read-bound: waited {} for {} ({} reader thread(s))", format_duration(r.read_wait_seconds),
                       r.disk, r.read_threads);
  if (r.format == "raw") return fmt::format("write-bound: {} writing {}", format_duration(r.encode_seconds), r.out);
  return fmt::format("compress-bound: {} compressing ({}, {} thread(s))", format_duration(r.encode_seconds), r.format,
                     r.encode_threads);
}

/// Bytes of [b, e) within [wb, we).
std::uint64_t backup_overlap(std::uint64_t b, std::uint64_t e, std::uint64_t wb, std::uint64_t we) {
  const std::uint64_t lo = std::max(b, wb), hi = std::min(e, we);
  return hi > lo ? hi - lo : 0;
}

/// A piece that was read, into the encoder: its ranges in `skip` (zeros: free or unpartitioned
/// space) as zeros, so that a raw OUT has holes there too.
void backup_write_with_holes(const image::WriteMap& skip, std::uint64_t at, std::size_t n,
                             const std::vector<std::byte>& buf, const std::vector<std::byte>& zeros, Encoder& enc) {
  std::uint64_t pos = at;
  for (const image::ByteRange& g : skip.skipped_in(at, n)) {
    if (g.begin > pos) enc.write(std::span<const std::byte>(buf.data() + (pos - at), g.begin - pos));
    enc.zeros(std::span<const std::byte>(zeros.data(), g.size()));
    pos = g.end;
  }
  if (at + n > pos) enc.write(std::span<const std::byte>(buf.data() + (pos - at), at + n - pos));
}

/// One read of a disk (or the shrunk copy) into an encoder: the used pieces
/// through a ReaderFeed, wholly free ones as zeros.
struct BackupPass {
  const BackupOptions& o;
  BackupClock::time_point t0;
  bool first = true;
  double read_wait = 0;
  std::uint64_t read_bytes = 0;        ///< from the disk (the first pass)
  std::uint64_t not_read_bytes = 0;    ///< pieces wholly in free space or unpartitioned, not read (the first pass)
  std::uint64_t not_read_outside = 0;  ///< of those, the bytes outside every partition (the first pass)
  std::vector<std::uint64_t> not_read_each;  ///< not_read_outside by region, in `outside`'s order (the first pass)
  unsigned threads = 0;

  /// `skip`: free space and the unpartitioned space not read (merge_skip_map()), zeros in OUT (holes in a raw
  /// OUT, also inside a piece that is read); `unpartitioned`: the regions of it outside every partition.
  void run(image::ImageReader& reader, const image::WriteMap& skip, const std::vector<OutsideRegion>& outside,
           Encoder& enc) {
    const std::uint64_t size = reader.size();
    auto report = [&](ProgressEvent::Kind kind, std::uint64_t done) {
      if (!o.progress) return;
      ProgressEvent e;
      e.kind = kind;
      e.phase = Phase::Write;
      e.done = double(done);
      e.total = double(size);
      e.elapsed_s = backup_seconds_since(t0);
      e.target = o.out;
      o.progress(e);
    };
    image::ReaderFeed feed(reader, &skip, o.threads);
    report(ProgressEvent::Kind::Begin, 0);
    std::vector<std::byte> buf(4u << 20), zeros(4u << 20);
    std::uint64_t not_read = 0, outside_not_read = 0;
    std::vector<std::uint64_t> each(outside.size(), 0);
    for (std::uint64_t at = 0; at < size;) {
      auto w0 = BackupClock::now();
      const std::size_t n = feed.fill(buf, at);
      read_wait += backup_seconds_since(w0);
      if (n == 0) break;
      if (feed.wholly_skipped(at, n)) {
        enc.zeros(std::span<const std::byte>(zeros.data(), n));
        not_read += n;
        for (std::size_t i = 0; i < outside.size(); ++i)
          if (!outside[i].read) {
            const std::uint64_t b = backup_overlap(outside[i].offset, outside[i].offset + outside[i].size, at, at + n);
            outside_not_read += b;
            each[i] += b;
          }
      } else {
        backup_write_with_holes(skip, at, n, buf, zeros, enc);
      }
      at += n;
      report(ProgressEvent::Kind::Update, at);
    }
    enc.finish();
    report(ProgressEvent::Kind::End, size);
    if (first) {
      read_bytes = feed.stats().bytes_decoded;
      not_read_bytes = not_read;
      not_read_outside = outside_not_read;
      not_read_each = std::move(each);
    }
    threads = feed.threads();
  }
};

/// What a pass does not read: the file systems' free space and the space outside every
/// partition (outside_partitions.hpp), read from the disk's table and allocation maps.
struct BackupSkip {
  image::SkipFilter filter;
  std::vector<OutsideRegion> outside;
  image::WriteMap map;

  BackupSkip(image::ImageReader& reader, const image::PartitionTable& table)
      : filter([&reader](std::span<std::byte> out, std::uint64_t offset) { reader.read_at(out, offset); },
               reader.size(), table) {
    if (filter.note().empty()) outside = outside_partitions(table, reader.size());
    merge_skip_map(filter.map(), outside, map);
  }
};

/// The last pass: into OUT (a temporary file renamed when complete), then OUT.sha256.
void encode_out(const BackupOptions& o, OutFormat f, image::ImageReader& reader, const BackupSkip& skip,
                BackupPass& pass, BackupResult& r) {
  AtomicFile file(o.out);
  OutSink sink(file.fd(), o.out);
  auto enc = make_encoder(f, sink, o.threads, unit_bytes_for(reader.size()));
  pass.run(reader, skip.map, skip.outside, *enc);
  file.commit();
  r.image_bytes = reader.size();
  r.sha256 = sink.sha256();
  r.out_bytes = sink.bytes();
  r.sha256_file = o.out + ".sha256";
  atomic_write(r.sha256_file, r.sha256 + "  " + fs::path(o.out).filename().string() + "\n");
  r.read_bytes = pass.read_bytes;
  r.skipped_bytes = pass.not_read_bytes;
  r.unpartitioned_skipped_bytes = pass.not_read_outside;
  r.unpartitioned_cut_bytes = 0;  // r.outside is the first pass's `outside`, its cut regions marked since
  for (std::size_t i = 0; i < r.outside.size() && i < pass.not_read_each.size(); ++i)
    if (!r.outside[i].read && r.outside[i].why == kCutByShrink) r.unpartitioned_cut_bytes += pass.not_read_each[i];
  r.read_wait_seconds = pass.read_wait;
  r.encode_seconds = enc->busy_seconds();
  r.read_threads = pass.threads;
  r.encode_threads = enc->threads();
}

/// true when `a` and `b` are the same block device (by any name: /dev/disk/by-id/..., a symlink).
bool backup_same_block_device(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode) &&
         sa.st_rdev == sb.st_rdev;
}

/// OUT a disk or a directory: said so before OUT's name is judged (a format message would mislead).
/// OUT DISK itself, or one of its partitions, is said so plainly (clone's advice is for another disk).
void refuse_out_not_a_file(const std::string& disk, const std::string& out) {
  struct stat st {};
  if (::stat(out.c_str(), &st) != 0) return;
  if (S_ISBLK(st.st_mode)) {
    std::string parent;
    const bool partition = classify_path(out, &parent) == TargetKind::Partition;
    constexpr const char* kImageFile = "OUT must be an image file (.img, .img.xz, .img.zst or .img.gz)";
    if (backup_same_block_device(out, disk) || (partition && backup_same_block_device(parent, disk)))
      throw Error(ErrorKind::Usage,
                  fmt::format("{} is {}the DISK being backed up: {} on another disk's file system; a backup is "
                              "never written onto the disk it reads",
                              out, partition ? "a partition of " + parent + ", " : std::string(), kImageFile));
    const std::string what = partition ? "a partition of " + parent : std::string("a disk");
    throw Error(ErrorKind::Usage, fmt::format("{} is {}: {}, not a disk or partition; to copy a disk onto another, "
                                              "piprov clone DISK TARGET does it in one step",
                                              out, what, kImageFile));
  }
  if (S_ISDIR(st.st_mode))
    throw Error(ErrorKind::Usage, out + " is a directory: OUT must be an image file in it, e.g. " +
                                      (fs::path(out) / "backup.img.xz").string());
}

}  // namespace

BackupResult run_backup(const BackupOptions& o) {
  if (o.disk.empty() || o.out.empty()) throw Error(ErrorKind::Usage, "backup needs DISK and OUT");
  refuse_out_not_a_file(o.disk, o.out);
  const OutFormat f = out_format_for(o.out);
  const std::optional<WriteSubject> source = inspect_source_disk(o.disk);
  refuse_out_on_source(o.disk, source, o.out);
  check_output_file(o.out, "OUT");
  refuse_mounted_source(o.disk, source);
  std::error_code ec;
  if (fs::exists(o.out, ec) && !o.replace)
    throw Error(ErrorKind::Usage, o.out + " exists: give --yes to replace it, or another name");
  // OUT.sha256 is written with OUT: an existing one (a file, or a symlink, which is replaced
  // itself by the rename, never followed) is refused as OUT is; a directory cannot be replaced.
  const std::string sum = o.out + ".sha256";
  const fs::file_status sum_st = fs::symlink_status(sum, ec);
  if (fs::is_directory(sum_st))
    throw Error(ErrorKind::Usage, sum + " is a directory: backup writes OUT's checksum there; give OUT another name");
  if (fs::exists(sum_st) && !o.replace)
    throw Error(ErrorKind::Usage,
                sum + " exists" + (fs::is_symlink(sum_st) ? " (a symlink: it would be replaced, never followed)" : "") +
                    ": give --yes to replace it with OUT's checksum, or another name for OUT");

  BackupResult r;
  r.disk = o.disk;
  r.out = o.out;
  r.format = out_format_name(f);
  auto reader = image::open_disk_reader(o.disk);
  r.disk_bytes = reader->size();
  BackupSkip skip(*reader, image::read_partition_table(*reader, std::nullopt));
  r.partitions = skip.filter.partitions();
  r.note = skip.filter.note();
  r.outside = skip.outside;
  refuse_damaged_source(r.partitions, o.disk, o.force, "back it up");

  const auto t0 = BackupClock::now();
  BackupPass pass{o, t0};
  std::optional<AtomicFile> raw;  // --shrink: the used blocks, raw and sparse, removed at the end
  if (o.shrink) {
    raw.emplace(fs::absolute(o.out).parent_path() / (fs::path(o.out).filename().string() + ".shrink"));
    OutSink raw_sink(raw->fd(), raw->temp_path().string());
    auto raw_enc = make_encoder(OutFormat::Raw, raw_sink, 1, unit_bytes_for(r.disk_bytes));
    pass.run(*reader, skip.map, skip.outside, *raw_enc);
    reader.reset();
    ShrinkResult sr = shrink_last_partition(raw->temp_path().string());
    r.shrink_line = sr.line;
    // The image now ends after the last partition (and a GPT's backup header, moved there): the
    // unread region that went past that end is cut.
    for (auto& region : r.outside)
      if (sr.image_bytes && sr.image_bytes < r.disk_bytes && !region.read &&
          region.offset + region.size > sr.image_bytes)
        region.why = kCutByShrink;
    reader = image::open_disk_reader(raw->temp_path().string());
    BackupSkip shrunk(*reader, image::read_partition_table(*reader, std::nullopt));
    pass.first = false;
    encode_out(o, f, *reader, shrunk, pass, r);
  } else {
    encode_out(o, f, *reader, skip, pass, r);
  }
  r.seconds = backup_seconds_since(t0);
  r.limit = backup_limit(r);
  return r;
}

std::string backup_summary(const BackupResult& r) {
  const double rate = r.seconds > 0 ? double(r.disk_bytes) / r.seconds : 0;
  // The unpartitioned bytes not read: zeros in the image, or cut from it by --shrink (said apart, as the
  // regions' own lines say).
  const std::uint64_t cut = std::min(r.unpartitioned_cut_bytes, r.unpartitioned_skipped_bytes);
  const std::uint64_t zeros = r.unpartitioned_skipped_bytes - cut;
  std::string s = fmt::format(
      "backup: {} ({}) -> {} ({}, {}) in {} ({} of disk); read {}, skipped {} of free space{} (zeros in the "
      "image){}",
      r.disk, format_bytes(r.disk_bytes), r.out, r.format, format_bytes(r.out_bytes), format_duration(r.seconds),
      format_mib_s(rate), format_bytes(r.read_bytes), format_bytes(r.skipped_bytes - r.unpartitioned_skipped_bytes),
      zeros ? fmt::format(" and {} unpartitioned", format_bytes(zeros)) : "",
      cut ? fmt::format(" and {} unpartitioned ({})", format_bytes(cut), kCutByShrink) : "");
  for (const auto& p : r.partitions) {
    if (!p.full_reason.empty()) s += fmt::format("\npartition {}: {}: read in full", p.number, p.full_reason);
  }
  for (const auto& o : r.outside) s += "\n" + outside_region_line(o);
  if (!r.note.empty()) s += fmt::format("\n{}: read in full", r.note);
  if (!r.shrink_line.empty()) s += fmt::format("\n{} (image {})", r.shrink_line, format_bytes(r.image_bytes));
  s += fmt::format("\nspeed: {}\nsha256: {} ({})", r.limit, r.sha256, r.sha256_file);
  return s;
}

nlohmann::json backup_failure_json(const BackupOptions& o, const Error& e) {
  return {{"schema", "piprov.backup/1"},
          {"disk", o.disk},
          {"out", o.out},
          {"error", {{"exit_code", static_cast<int>(e.kind())}, {"message", e.what()}}}};
}

nlohmann::json backup_result_json(const BackupResult& r) {
  const nlohmann::json parts = source_partitions_json(r.partitions);
  return {{"schema", "piprov.backup/1"},
          {"disk", r.disk},
          {"out", r.out},
          {"format", r.format},
          {"disk_bytes", r.disk_bytes},
          {"read_bytes", r.read_bytes},
          {"skipped_bytes", r.skipped_bytes},
          {"unpartitioned_skipped_bytes", r.unpartitioned_skipped_bytes},
          {"out_bytes", r.out_bytes},
          {"image_bytes", r.image_bytes},
          {"shrink", r.shrink_line},
          {"sha256", r.sha256},
          {"sha256_file", r.sha256_file},
          {"seconds", r.seconds},
          {"limit", r.limit},
          {"read_threads", r.read_threads},
          {"encode_threads", r.encode_threads},
          {"partitions", parts},
          {"outside_partitions", outside_regions_json(r.outside)},
          {"note", r.note}};
}

}  // namespace piprov::keep
