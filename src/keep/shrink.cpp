// shrink_last_partition() (shrink.hpp).
#include "keep/shrink.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <optional>
#include <regex>
#include <span>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/process.hpp"
#include "core/units.hpp"
#include "image/disk_reader.hpp"
#include "image/image_fs.hpp"
#include "image/image_reader.hpp"
#include "keep/gpt_fit.hpp"
#include "keep/grows_back.hpp"

namespace piprov::keep {

namespace {

constexpr std::uint64_t kShrinkMiB = 1u << 20;

std::string shrink_trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

/// A loop device over bytes [offset, offset + size) of a file, detached on destruction.
class ShrinkLoop {
 public:
  ShrinkLoop(const std::string& file, std::uint64_t offset, std::uint64_t size) {
    dev_ = shrink_trim(run_program_or_throw({"losetup", "-f", "--show", "-o", std::to_string(offset), "--sizelimit",
                                             std::to_string(size), file})
                           .out);
  }
  ~ShrinkLoop() { (void)run_program({"losetup", "-d", dev_}); }
  ShrinkLoop(const ShrinkLoop&) = delete;
  ShrinkLoop& operator=(const ShrinkLoop&) = delete;
  const std::string& dev() const { return dev_; }

 private:
  std::string dev_;
};

std::uint64_t dumpe2fs_field(const std::string& text, const std::string& field) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\n" + field + ":\\s+([0-9]+)")))
    throw Error(ErrorKind::Io, "dumpe2fs -h did not print " + field);
  return std::stoull(m[1]);
}

std::uint64_t ext_bytes(const std::string& dev) {
  auto r = run_program_or_throw({"dumpe2fs", "-h", dev});
  const std::string text = "\n" + r.out;
  return dumpe2fs_field(text, "Block count") * dumpe2fs_field(text, "Block size");
}

/// Cuts the raw image `img` (`file_bytes` long) at `end`, the end of its last partition, plus
/// 1 MiB for a GPT's backup header and entries, moved there (sfdisk --relocate gpt-bak-std;
/// UEFI 2.10 section 5.3.2: the backup header is in the disk's last LBA). Nothing is cut when
/// that is not before the file's end. Returns the image's size after. Throws Error{Io}.
std::uint64_t shrink_cut_end(const std::string& img, image::TableScheme scheme, std::uint64_t end,
                             std::uint64_t file_bytes) {
  if (scheme == image::TableScheme::Gpt) end += kShrinkMiB;
  if (end >= file_bytes) return file_bytes;
  // The primary header first names the new end: on a header naming the old one, libfdisk reads no
  // GPT at all, and --relocate would leave the image with no backup and a last usable LBA past its end.
  if (scheme == image::TableScheme::Gpt) fit_gpt_header(img, end);
  if (::truncate(img.c_str(), static_cast<off_t>(end)) != 0) throw io_error("cutting " + img, errno);
  if (scheme == image::TableScheme::Gpt)
    run_program_or_throw({"sfdisk", "--no-reread", "--no-tell-kernel", "-q", "--relocate", "gpt-bak-std", img});
  return end;
}

/// Where the last partition of `t` ends, an MBR extended partition included (bytes).
std::uint64_t shrink_partitions_end(const image::PartitionTable& t) {
  std::uint64_t end = 0;
  for (const auto& p : t.parts) end = std::max(end, p.offset + p.size);
  return end;
}

}  // namespace

ShrinkResult shrink_last_partition(const std::string& img) {
  ShrinkResult res;
  const std::uint64_t file_bytes = std::filesystem::file_size(img);
  const image::PartitionTable t = image::read_image_partitions(*image::open_disk_reader(img));
  const auto last = image::last_data_partition(t);
  if (!last) {
    // An EBR chain not read to its end: a logical partition after the last one listed may be missing, and cutting
    // the file after the one listed would cut it off.
    res.line = !t.logical_note.empty() && !t.parts.empty()
                   ? "--shrink: the last partition is not known (" + t.logical_note + "): not shrunk"
               : t.note.empty() ? "--shrink: no partition table: not shrunk"
                                : "--shrink: " + t.note + ": not shrunk";
    return res;
  }
  const auto container = image::extended_container_of(t, *last);
  res.partition = last->number;
  res.old_bytes = last->size;
  res.image_bytes = file_bytes;
  ShrinkLoop loop(img, last->offset, last->size);
  auto type = run_program({"blkid", "-p", "-o", "value", "-s", "TYPE", loop.dev()},
                          {.env = {}, .capture_stdout = true, .input = {}});
  const std::string fs = shrink_trim(type.out);
  if (fs != "ext4" && fs != "ext3" && fs != "ext2") {
    res.image_bytes = shrink_cut_end(img, t.scheme, shrink_partitions_end(t), file_bytes);
    res.line = fmt::format("--shrink: partition {} holds {}, not ext2/3/4: not shrunk{}", last->number,
                           fs.empty() ? "no file system blkid knows" : fs,
                           res.image_bytes < file_bytes ? "; the image ends after it" : "");
    return res;
  }
  run_program_or_throw({"e2fsck", "-fy", loop.dev()}, {1});  // 1: errors corrected (in the copy)
  run_program_or_throw({"resize2fs", "-M", loop.dev()});
  const std::uint64_t min_bytes = ext_bytes(loop.dev());
  const std::uint64_t margin = min_bytes / kShrinkMarginDiv;
  std::uint64_t want = (min_bytes + margin + kShrinkMiB - 1) / kShrinkMiB * kShrinkMiB;
  want = std::min(want, last->size / kShrinkMiB * kShrinkMiB);
  run_program_or_throw({"resize2fs", loop.dev(), std::to_string(want / 1024) + "K"});
  res.new_bytes = ext_bytes(loop.dev());
  res.grows_back = root_grows_back_on(loop.dev());
  if (res.new_bytes >= last->size) {
    res.image_bytes = shrink_cut_end(img, t.scheme, shrink_partitions_end(t), file_bytes);
    res.line = fmt::format("--shrink: partition {} ({}) is already at its minimum plus the margin{}", last->number, fs,
                           res.image_bytes < file_bytes ? "; the image ends after it" : "");
    return res;
  }
  // The table entry: same start, the new size in 512-byte sectors (sfdisk -N keeps the type).
  run_program_or_throw({"sfdisk", "--no-reread", "--no-tell-kernel", "-q", "-N", std::to_string(last->number), img}, {},
                       fmt::format("start={}, size={}\n", last->offset / 512, res.new_bytes / 512));
  std::uint64_t end = last->offset + res.new_bytes;
  if (container)  // the extended partition ends where its last logical one now does (sfdisk keeps the EBRs)
    run_program_or_throw(
        {"sfdisk", "--no-reread", "--no-tell-kernel", "-q", "-N", std::to_string(container->number), img}, {},
        fmt::format("start={}, size={}\n", container->offset / 512, (end - container->offset) / 512));
  res.shrunk = true;
  res.image_bytes = shrink_cut_end(img, t.scheme, end, file_bytes);
  res.line = fmt::format(
      "--shrink: partition {} ({}{}) shrunk from {} to {} in the image (resize2fs -M's {} plus {}); {}", last->number,
      fs, container ? fmt::format(", logical: extended partition {} cut with it", container->number) : "",
      format_bytes(res.old_bytes), format_bytes(res.new_bytes), format_bytes(min_bytes),
      format_bytes(res.new_bytes - min_bytes), res.grows_back);
  return res;
}

}  // namespace piprov::keep
