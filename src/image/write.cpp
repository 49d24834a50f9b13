#include "image/write.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/hashing.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "image/checksum.hpp"
#include "image/data_path.hpp"
#include "image/fanout.hpp"
#include "image/image_fs.hpp"
#include "image/image_reader.hpp"
#include "image/partitions.hpp"
#include "image/skip_filter.hpp"
#include "image/source.hpp"
#include "image/speed.hpp"
#include "image/target.hpp"
#include "image/target_writer.hpp"
#include "image/verify.hpp"
#include "image/write_targets.hpp"

namespace piprov::image {
namespace {

using Clock = std::chrono::steady_clock;

// Buffers between the decoder and the writers: each is shared by every
// target, so memory does not grow with the number of targets.
constexpr std::size_t kBuffers = 8;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// One target being written: its facts, writer, progress and outcome.
struct Job {
  TargetInfo info;
  TargetOutcome out;
  std::unique_ptr<TargetWriter> writer;
  std::unique_ptr<ProgressPhase> progress;
  bool failed = false;
};

/// What the stream gave: size, hashes, the decoder's idle time.
struct Stream {
  std::uint64_t total = 0;
  std::string xxh3_128;
  ChunkHashes chunks;
  double decoder_waited = 0;
};

/// What a failed write left behind, appended to the error.
std::string aftermath(const TargetInfo& t, std::uint64_t written, std::optional<std::uint64_t> total) {
  std::string how_far = format_bytes(written) + (total ? " of " + format_bytes(*total) : std::string()) + " written";
  if (t.is_file && !t.exists) return fmt::format("{}; the incomplete file {} was removed", how_far, t.path);
  if (t.is_file) return fmt::format("{}; {} holds an incomplete image", how_far, t.path);
  return fmt::format("{}; the first MiB was not written, so {} does not look bootable", how_far, t.path);
}

/// Closes a job whose write failed (removing a file this run created) and
/// returns what it left behind.
std::string abandon(Job& j, std::optional<std::uint64_t> total) {
  std::uint64_t written = j.writer ? j.writer->written() : 0;
  if (j.writer) j.writer->close();
  if (j.progress) j.progress->end();
  if (j.info.is_file && !j.info.exists) {  // only a file this run created; an existing one is never removed
    std::error_code ec;
    std::filesystem::remove(j.info.path, ec);
  }
  j.out.bytes_written = written;
  return aftermath(j.info, written, total);
}

/// Records `e` as the job's failure (kind, message with what is left, offset).
void fail(Job& j, const Error& e, std::optional<std::uint64_t> total, bool written_fully = false) {
  j.failed = true;
  j.out.ok = false;
  j.out.error_kind = e.kind();
  if (const auto* at = dynamic_cast<const ErrorAt*>(&e)) j.out.failed_offset = at->offset();
  j.out.error = written_fully ? e.what() : fmt::format("{}; {}", e.what(), abandon(j, total));
  if (!j.out.failed_offset && !written_fully) j.out.failed_offset = j.out.bytes_written;
  spdlog::info("{}", j.out.error);
}

/// Throws the error for a failure that stops every target (corrupt input,
/// SHA-256 mismatch, Ctrl-C): `e` (an ErrorAt keeps its offset) and what each
/// target was left with.
[[noreturn]] void stop_all(const Error& e, std::vector<Job>& jobs, std::optional<std::uint64_t> total) {
  std::vector<std::string> left;
  for (auto& j : jobs)
    if (!j.failed) left.push_back(abandon(j, total));
  const std::string what = left.empty() ? std::string(e.what()) : fmt::format("{}; {}", e.what(), join(left, "; "));
  if (const auto* at = dynamic_cast<const ErrorAt*>(&e)) throw ErrorAt(e.kind(), what, at->offset());
  throw Error(e.kind(), what);
}

/// Unmounts (--unmount) and opens every target, before the first byte of
/// any is written. Throws the first open's error when one cannot be opened.
std::vector<Job> open_jobs(const WriteOptions& o, std::vector<TargetInfo> infos, const WriteMap* skip) {
  std::vector<Job> jobs(infos.size());
  for (std::size_t i = 0; i < infos.size(); ++i) {
    Job& j = jobs[i];
    j.info = std::move(infos[i]);
    j.out.target = o.targets[i];
    if (!j.info.is_file && !j.info.disk.mounted().empty()) j.out.unmounted = unmount_target(j.info);
    if (!j.info.is_file && j.info.disk.transport == Transport::Usb) j.out.usb = usb_link(j.info.disk.name);
  }
  for (auto& j : jobs) {
    bool direct = true;
    UniqueFd fd = open_target_for_write(j.info, &direct);
    j.writer = std::make_unique<TargetWriter>(j.info, std::move(fd), direct);
    j.writer->set_skip_map(skip);
    spdlog::info("writing {} to {}: {} KiB writes{}", o.image, j.info.path, j.info.io_bytes / 1024,
                 direct ? " (O_DIRECT)" : "");
  }
  return jobs;
}

/// The writer of one job, as a fan-out consumer. A failure is rethrown so the
/// fan-out drops the target; `alive` counts writers still going.
FanoutConsumeFn writer_of(Job& j, const std::function<double()>& fraction, std::atomic<std::size_t>& alive) {
  return [&j, &fraction, &alive](const AlignedBuffer& buf, std::size_t len, std::uint64_t offset) {
    try {
      if (offset == 0) j.writer->wipe_edges();
      j.writer->write(buf, len, offset);
      j.progress->update(static_cast<double>(offset + len), fraction());
    } catch (...) {
      --alive;
      throw;
    }
  };
}

/// Decodes once and feeds every writer plus the stream hasher. Targets that
/// fail are marked in their job; a decoder error or Ctrl-C is thrown for all.
Stream decode_and_write(const WriteOptions& o, const DataPath& path, std::vector<Job>& jobs, const ProgressSink& sink,
                        SkipFilter* filter) {
  const auto size = path.size;
  std::size_t capacity = jobs.front().info.io_bytes;  // one buffer size for all: the smallest write size
  for (const auto& j : jobs) capacity = std::min(capacity, j.info.io_bytes);
  Stream s;
  s.chunks.chunk_bytes = capacity;
  Xxh3_128 whole;
  std::atomic<std::size_t> alive{jobs.size()};
  std::vector<FanoutConsumeFn> consumers;
  for (auto& j : jobs) {
    ProgressEvent tmpl;
    tmpl.target = j.info.path;
    j.progress = std::make_unique<ProgressPhase>(sink, Phase::Write, static_cast<double>(size.value_or(0)),
                                                 ProgressUnit::Bytes, tmpl);
    consumers.push_back(writer_of(j, path.fraction, alive));
  }
  consumers.push_back([&](const AlignedBuffer& buf, std::size_t len, std::uint64_t offset) {
    if (alive == 0) throw Error(ErrorKind::Io, "every target failed");  // stop decoding for no one
    throw_if_cancelled("while writing");
    // Skipped free space as zeros (docs/write.md "Decoding only what is
    // written"); a range sent without its buffer is wholly skipped.
    hash_as_written(whole, buf.capacity() == 0 ? nullptr : buf.data(), len, offset,
                    filter ? filter->map().skipped_in(offset, len) : std::vector<ByteRange>{});
    if (o.verify)  // over the bytes written: skipped ones are neither written nor compared
      s.chunks.hashes.push_back(filter
                                    ? written_chunk_hash(buf.data(), len, offset, filter->map().skipped_in(offset, len))
                                    : chunk_hash(buf.data(), len));
  });
  FanoutResult f;
  try {
    f = run_fanout(kBuffers, capacity, path.produce, consumers, path.no_data);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted) stop_all(Error(e.kind(), "interrupted while writing"), jobs, size);
    stop_all(e, jobs, size);  // a corrupt block keeps its offset (ErrorAt)
  }
  for (std::size_t i = 0; i < f.consumer_errors.size(); ++i) {
    const bool hasher = i == jobs.size();
    if (!hasher) jobs[i].out.waited_for_decoder_seconds = f.consumer_waited_seconds[i];
    if (!f.consumer_errors[i]) continue;
    try {
      std::rethrow_exception(f.consumer_errors[i]);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Interrupted) stop_all(Error(e.kind(), "interrupted while writing"), jobs, size);
      if (!hasher) fail(jobs[i], e, size);  // the hasher only stops when no writer is left
    }
  }
  s.total = f.total;
  if (filter) s.chunks.skipped = filter->map().all();
  s.xxh3_128 = whole.hex();
  s.decoder_waited = f.producer_waited_seconds;
  return s;
}

/// Reads the target back and compares the chunk hashes; sets verified,
/// verify_seconds and the waits. Throws as verify_readback().
void verify_job(const WriteOptions& o, Job& j, const Stream& s, const ProgressSink& sink) {
  auto start = Clock::now();
  try {
    ReadbackWaits w = verify_readback(j.info, o.image, o.threads, s.total, s.chunks, sink);
    j.out.verify_waited_for_device_seconds = w.for_device;
    j.out.verify_waited_for_hashing_seconds = w.for_hashing;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Interrupted) throw;
    throw Error(e.kind(), fmt::format("{}; all {} were written to {} but not verified: run piprov verify {} {}",
                                      e.what(), format_bytes(s.total), j.info.path, o.image, j.info.path));
  }
  j.out.verify_seconds = since(start);
  j.out.verified = true;
}

/// One target after the stream: fdatasync, the first MiB, BLKRRPART, verify.
void finish_job(const WriteOptions& o, Job& j, const Stream& s, Clock::time_point start, const ProgressSink& sink) {
  try {
    j.writer->sync();
    j.writer->commit_head(s.total);
    j.progress->end();
    j.writer->close();
  } catch (const Error& e) {
    return fail(j, e, s.total);
  }
  j.out.bytes_written = s.total;
  j.out.bytes_skipped = j.writer->skipped();
  j.out.bytes_discarded = j.writer->discarded();
  j.out.write_seconds = since(start);
  try {
    if (!j.info.is_file) j.out.partitions = reread_partitions(j.info.path);
    if (o.verify) verify_job(o, j, s, sink);
    j.out.ok = true;
  } catch (const Error& e) {
    fail(j, e, s.total, true);
  }
}

/// finish_job() for every target still going, in parallel. Ctrl-C in any is
/// rethrown once all are done.
void finish_all(const WriteOptions& o, std::vector<Job>& jobs, const Stream& s, Clock::time_point start,
                const ProgressSink& sink) {
  std::vector<std::thread> threads;
  for (auto& j : jobs)
    if (!j.failed) threads.emplace_back([&o, &j, &s, start, &sink] { finish_job(o, j, s, start, sink); });
  for (auto& t : threads) t.join();
  for (auto& j : jobs)
    if (j.failed && j.out.error_kind == ErrorKind::Interrupted) throw Error(ErrorKind::Interrupted, j.out.error);
}

/// The stream's and every job's outcome into `r` (after finish_all()).
void collect_outcomes(const WriteOptions& o, const Stream& s, std::vector<Job>& jobs, const SkipFilter* filter,
                      WriteResult& r) {
  r.image_bytes = s.total;
  r.xxh3_128 = s.xxh3_128;
  r.full = o.full;
  if (filter) {
    r.skipped_bytes = filter->map().skipped_bytes();
    r.partitions = filter->partitions();
    r.skip_note = filter->note();
  }
  r.skip_line = skip_summary(r.full, r.image_bytes, r.skipped_bytes, r.partitions, r.skip_note);
  for (auto& j : jobs) {
    // A disk that took no discard keeps its old bytes where the image is free:
    // say so on the summary line (docs/write.md "Free space").
    if (j.out.ok && !j.info.is_file && j.out.bytes_skipped > j.out.bytes_discarded)
      r.skip_line += fmt::format(
          "; not discarded on {} (no discard support): its skipped free space still holds the disk's old data "
          "(--full overwrites it)",
          j.out.target);
    r.write_seconds = std::max(r.write_seconds, j.out.write_seconds);
    r.verify_seconds = std::max(r.verify_seconds, j.out.verify_seconds);
    r.targets.push_back(std::move(j.out));
  }
}

}  // namespace

Error no_target_written(const WriteResult& r) {
  std::vector<std::string> lines;
  lines.reserve(r.targets.size());
  for (const auto& t : r.targets) lines.push_back(t.error);
  return Error(r.targets.front().error_kind, join(lines, "\n"));
}

std::size_t WriteResult::succeeded() const {
  return static_cast<std::size_t>(std::count_if(targets.begin(), targets.end(), [](auto& t) { return t.ok; }));
}
std::size_t WriteResult::failed() const { return targets.size() - succeeded(); }

struct PreparedWrite::State {
  WriteOptions o;
  std::string want_sha;  ///< the SHA-256 expected of IMAGE ("" = none)
  std::string pre_sha;   ///< IMAGE's SHA-256 when hashed before the write (a file on disk)
  std::vector<TargetInfo> infos;
  std::unique_ptr<Source> src;  ///< only for a sequential image or a hash taken as IMAGE streams
  std::unique_ptr<ImageReader> reader;
  ImageShape shape;
  PartitionTable table;
};

PreparedWrite::PreparedWrite(std::unique_ptr<State> s) : s_(std::move(s)) {}
PreparedWrite::PreparedWrite(PreparedWrite&&) noexcept = default;
PreparedWrite& PreparedWrite::operator=(PreparedWrite&&) noexcept = default;
PreparedWrite::~PreparedWrite() = default;
const WriteOptions& PreparedWrite::options() const { return s_->o; }
const PartitionTable& PreparedWrite::partition_table() const { return s_->table; }
ImageReader& PreparedWrite::reader() { return *s_->reader; }

PreparedWrite prepare_write(const WriteOptions& o) {
  if (o.image.empty() || o.targets.empty()) throw Error(ErrorKind::Usage, "write needs IMAGE and DEVICE");
  auto p = std::make_unique<PreparedWrite::State>();
  p->o = o;
  p->want_sha = expected_sha256(o.sha256, o.sha256_file, o.image);
  p->infos = check_targets(o);
  // A file on disk is hashed before any target is opened for writing: a wrong
  // download never destroys what the disks held. Stdin is hashed as it streams.
  std::error_code ec;
  if (!p->want_sha.empty() && std::filesystem::is_regular_file(o.image, ec)) {
    p->pre_sha = sha256_file(o.image);
    if (p->pre_sha != p->want_sha)
      throw Error(ErrorKind::Verify, fmt::format("SHA-256 of {} is {}, expected {}: the file is not the published one; "
                                                 "download it again; nothing was written",
                                                 o.image, p->pre_sha, p->want_sha));
  }
  // IMAGE is opened once, as a reader. A random-access one (raw, multi-block
  // xz, multi-frame zst) is all the write reads; a sequential one (gzip,
  // single-block xz) is written from the streaming Source, and a hash wanted
  // as IMAGE streams (a pipe or a device, not hashed above) comes from it too.
  p->reader = open_image_reader(o.image, o.threads);
  const bool random = p->reader->random_access();
  const bool stream_sha = !p->want_sha.empty() && p->pre_sha.empty();
  if (!random || stream_sha) p->src = open_source(o.image, o.threads, stream_sha);
  p->shape = random ? ImageShape{p->reader->format(), p->reader->size()} : ImageShape{p->src->format(), p->src->size()};
  p->table = read_partition_table(*p->reader, std::nullopt);
  check_complete_image(p->table, p->shape.size, p->shape.format, o.image);
  check_sizes(p->infos, p->shape, o.image);
  return PreparedWrite(std::move(p));
}

WriteResult write_image(const WriteOptions& o) { return run_write(prepare_write(o)); }

WriteResult run_write(PreparedWrite prepared) {
  PreparedWrite::State& p = *prepared.s_;
  const WriteOptions& o = p.o;
  const std::string& want_sha = p.want_sha;
  const std::string& pre_sha = p.pre_sha;
  std::unique_ptr<Source>& src = p.src;
  std::unique_ptr<ImageReader>& reader = p.reader;
  confirm_targets(o, p.infos, p.shape);

  WriteResult r;
  r.image = o.image;
  r.format = to_string(p.shape.format);
  r.decoder_threads = src ? src->threads() : 1;  // the feed's threads, below, for a random-access image
  r.input_bytes = reader->input_bytes();
  const ProgressSink sink = serialised_sink(o.progress);
  // A random-access image (raw, multi-block xz, multi-frame zst): the free
  // map is read first through the reader, then only the blocks written are
  // decoded (docs/write.md "Decoding only what is written").
  std::unique_ptr<SkipFilter> filter;
  if (reader->random_access()) {
    r.random_access = true;
    if (!o.full)
      filter = std::make_unique<SkipFilter>(
          [&reader](std::span<std::byte> out, std::uint64_t offset) { reader->read_at(out, offset); }, reader->size(),
          p.table);
  } else {
    r.decode_line =
        fmt::format("decoded every byte: {}; free space was learnt as the stream passed", reader->sequential_note());
    reader.reset();
    if (!o.full) filter = std::make_unique<SkipFilter>(p.table);
  }
  std::vector<Job> jobs = open_jobs(o, std::move(p.infos), filter ? &filter->map() : nullptr);
  auto start = Clock::now();
  std::unique_ptr<ReaderFeed> feed;
  if (reader) feed = std::make_unique<ReaderFeed>(*reader, filter ? &filter->map() : nullptr, o.threads);
  Stream s = decode_and_write(o, feed ? feed_path(*feed, reader->size()) : stream_path(*src, filter.get()), jobs, sink,
                              filter.get());
  if (s.total == 0) stop_all(Error(ErrorKind::Usage, o.image + " holds no data (0 bytes once decoded)"), jobs, 0);
  if (!pre_sha.empty()) {
    r.sha256 = pre_sha;
  } else if (!want_sha.empty()) {
    r.sha256 = src->input().finish_sha256();
    if (r.sha256 != want_sha)
      stop_all(Error(ErrorKind::Verify, fmt::format("SHA-256 of {} is {}, expected {}: the file is not the "
                                                    "published one; download it again",
                                                    o.image, r.sha256, want_sha)),
               jobs, s.total);
  }
  finish_all(o, jobs, s, start, sink);
  collect_outcomes(o, s, jobs, filter.get(), r);
  r.speed = feed ? waits_report(s.decoder_waited, r.targets) : speed_report(*src, s.decoder_waited, r.targets);
  if (feed) {
    r.decode = feed->stats();
    r.decode_line = feed_summary(r.decode, reader->format());
    r.decoder_threads = feed->threads();
    apply_feed(r.speed, r.decode, reader->format(), feed->threads(), r.targets.size());
  }
  if (r.succeeded() == 0 && !o.return_when_all_fail) throw no_target_written(r);
  return r;
}

WriteResult write_from_reader(const WriteOptions& o, std::vector<TargetInfo> targets, ImageReader& reader,
                              SkipFilter* filter) {
  WriteResult r;
  r.image = o.image;
  r.format = to_string(reader.format());
  r.input_bytes = reader.size();
  r.random_access = true;
  const ProgressSink sink = serialised_sink(o.progress);
  std::vector<Job> jobs = open_jobs(o, std::move(targets), filter ? &filter->map() : nullptr);
  auto start = Clock::now();
  ReaderFeed feed(reader, filter ? &filter->map() : nullptr, o.threads);
  Stream s = decode_and_write(o, feed_path(feed, reader.size()), jobs, sink, filter);
  finish_all(o, jobs, s, start, sink);
  collect_outcomes(o, s, jobs, filter, r);
  r.speed = waits_report(s.decoder_waited, r.targets);
  r.decode = feed.stats();
  r.decode_line = feed_summary(r.decode, reader.format());
  r.decoder_threads = feed.threads();
  apply_feed(r.speed, r.decode, reader.format(), feed.threads(), r.targets.size());
  if (r.succeeded() == 0 && !o.return_when_all_fail) throw no_target_written(r);
  return r;
}

}  // namespace piprov::image
