#include "image/write.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <chrono>
#include <filesystem>

#include "core/error.hpp"
#include "core/hashing.hpp"
#include "core/units.hpp"
#include "image/checksum.hpp"
#include "image/partitions.hpp"
#include "image/source.hpp"
#include "image/target.hpp"
#include "image/target_writer.hpp"
#include "image/verify.hpp"

namespace piprov::image {
namespace {

constexpr std::size_t kBuffers = 6;  // queue depth between decoder and writer

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string confirm_text(const WriteOptions& o, const TargetInfo& t, const Source& src) {
  auto size = src.size();
  std::string s = t.is_file ? "piprov will OVERWRITE the file:\n  " : "piprov will ERASE everything on:\n  ";
  s += describe_target(t);
  s += fmt::format("\nwith {} ({}, {}{})", o.image, to_string(src.format()),
                   size ? format_bytes(*size) : std::string("size unknown until decoded"),
                   size && src.format() != Format::Raw ? " uncompressed" : "");
  if (!t.is_file && !t.disk.mounted().empty()) {
    s += "\nfirst unmounting:";
    for (const auto& m : t.disk.mounted()) s += "\n  " + m;
  }
  return s;
}

/// What a failed write left behind, appended to the error.
std::string aftermath(const TargetInfo& t, std::uint64_t written, std::optional<std::uint64_t> total) {
  std::string how_far = format_bytes(written) + (total ? " of " + format_bytes(*total) : std::string()) + " written";
  if (t.is_file && !t.exists) return fmt::format("{}; the incomplete file {} was removed", how_far, t.path);
  if (t.is_file) return fmt::format("{}; {} holds an incomplete image", how_far, t.path);
  return fmt::format("{}; the first MiB was not written, so {} does not look bootable", how_far, t.path);
}

/// SHA-256 of the IMAGE file as read; throws Error{Verify} when it is not `want`.
std::string check_sha256(Source& src, const std::string& image, const std::string& want) {
  std::string got = src.input().finish_sha256();
  if (got != want)
    throw Error(ErrorKind::Verify, fmt::format("SHA-256 of {} is {}, expected {}: the file is not the published "
                                               "one; download it again",
                                               image, got, want));
  return got;
}

/// Reads the target back and compares it with the chunk hashes taken while
/// writing; sets r.verified and r.verify_seconds. Throws as verify_readback().
void verify_written(const WriteOptions& o, const TargetInfo& t, const ChunkHashes& chunks, WriteResult& r) {
  auto start = std::chrono::steady_clock::now();
  std::string back;
  try {
    back = verify_readback(t, o.image, o.threads, r.bytes_written, chunks, o.progress);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Interrupted) throw;
    throw Error(e.kind(), fmt::format("{}; all {} were written to {} but not verified: run piprov verify {} {}",
                                      e.what(), format_bytes(r.bytes_written), t.path, o.image, t.path));
  }
  if (back != r.xxh3_128)
    throw Error(ErrorKind::Verify,
                fmt::format("verify failed: XXH3-128 of {} read back is {}, written {}", t.path, back, r.xxh3_128));
  r.verify_seconds = since(start);
  r.verified = true;
}

}  // namespace

WriteResult write_image(const WriteOptions& o) {
  if (o.image.empty() || o.target.empty()) throw Error(ErrorKind::Usage, "write needs IMAGE and DEVICE");
  const std::string want_sha = expected_sha256(o.sha256, o.sha256_file, o.image);
  TargetInfo t = inspect_target(o.target, {.unmount = o.unmount, .overwrite = o.overwrite});
  check_image_not_on_target(o.image, t);
  auto src = open_source(o.image, o.threads, !want_sha.empty());
  if (!t.is_file && t.capacity == 0)
    throw Error(ErrorKind::Usage, fmt::format("{} has size 0 (no medium in the reader?): nothing was written; insert "
                                              "the card or disk, or give another device (see 'piprov devices')",
                                              t.path));
  auto size = src->size();
  if (size && (t.capacity || !t.is_file) && *size > t.capacity)
    throw Error(ErrorKind::Usage,
                fmt::format("the image {} ({}, {} bytes) is larger than {} ({}, {} bytes): nothing was written",
                            o.image, format_bytes(*size), *size, t.path,
                            t.is_file ? "free space" : format_bytes(t.capacity), t.capacity));

  if ((!t.is_file || t.exists) && !o.assume_yes) {
    if (!o.confirm)
      throw Error(ErrorKind::Usage, fmt::format("refusing to write {} without confirmation: pass --yes", t.path));
    if (!o.confirm(confirm_text(o, t, *src)))
      throw Error(ErrorKind::Usage, fmt::format("not confirmed: nothing was written to {}", t.path));
  }

  WriteResult r;
  r.image = o.image;
  r.target = o.target;
  r.format = to_string(src->format());
  r.decoder_threads = src->threads();
  r.input_bytes = src->input().size();
  if (!t.is_file && !t.disk.mounted().empty()) r.unmounted = unmount_target(t);

  bool direct = true;
  TargetWriter w(t, open_target_for_write(t, &direct), direct);
  Xxh3_128 whole;
  ChunkHashes chunks;
  chunks.chunk_bytes = t.io_bytes;
  spdlog::info("writing {} to {}: {} KiB writes{}, {} buffers", o.image, t.path, t.io_bytes / 1024,
               direct ? " (O_DIRECT)" : "", kBuffers);

  auto start = std::chrono::steady_clock::now();
  try {
    w.wipe_edges();
    ProgressPhase progress(o.progress, "write", static_cast<double>(size.value_or(0)));
    std::uint64_t total = run_pipeline(
        kBuffers, t.io_bytes, [&](std::span<std::byte> buf, std::uint64_t) { return src->read_full(buf); },
        [&](AlignedBuffer& buf, std::size_t len, std::uint64_t offset) {
          std::span<const std::byte> data(buf.data(), len);
          whole.update(data);
          if (o.verify) chunks.hashes.push_back(chunk_hash(buf.data(), len));
          w.write(buf, len, offset);
          progress.update(static_cast<double>(offset + len),
                          static_cast<double>(src->input().consumed()) /
                              static_cast<double>(std::max<std::uint64_t>(1, r.input_bytes)));
        });
    if (total == 0) throw Error(ErrorKind::Usage, o.image + " holds no data (0 bytes once decoded)");
    w.sync();
    if (!want_sha.empty()) r.sha256 = check_sha256(*src, o.image, want_sha);
    w.commit_head(total);
    progress.end();
    r.bytes_written = total;
  } catch (const Error& e) {
    std::uint64_t written = w.written();
    w.close();
    if (t.is_file && !t.exists) {  // only a file this run created; an existing one is never removed
      std::error_code ec;
      std::filesystem::remove(t.path, ec);
    }
    throw Error(e.kind(), fmt::format("{}; {}", e.what(), aftermath(t, written, size)));
  }
  w.close();
  r.write_seconds = since(start);
  r.xxh3_128 = whole.hex();
  if (!t.is_file) r.partitions = reread_partitions(t.path);

  if (o.verify) verify_written(o, t, chunks, r);
  return r;
}

}  // namespace piprov::image
