#include "image/write_targets.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <filesystem>
#include <span>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "image/partition_table.hpp"

namespace fs = std::filesystem;

namespace piprov::image {
namespace {

/// Throws TargetsRefused (Error{Usage}) when a target was refused:
/// `per_target` holds each target's line ("" when it was not refused); with
/// several targets a last line says that none of them was written.
void refuse(const std::vector<std::string>& per_target) {
  std::vector<std::string> lines;
  for (const auto& l : per_target)
    if (!l.empty()) lines.push_back(l);
  if (lines.empty()) return;
  if (per_target.size() == 1) throw TargetsRefused(lines.front(), per_target);
  throw TargetsRefused(join(lines, "\n") + "\nnothing was written to any target", per_target);
}

/// What makes two targets the same: a loop device's backing file (two loops on
/// one file are one disk, loop(4)), else the device number of a disk, else the
/// file's canonical path.
std::string identity(const TargetInfo& t) {
  std::error_code ec;
  if (!t.is_file && !t.disk.backing_file.empty())
    return "backing:" + fs::weakly_canonical(t.disk.backing_file, ec).string();
  if (!t.is_file && t.disk.devno != 0) return "dev:" + std::to_string(t.disk.devno);
  return "path:" + fs::weakly_canonical(t.path, ec).string();
}

std::string with_image(const WriteOptions& o, const ImageShape& shape) {
  const auto& size = shape.size;
  return fmt::format("with {} ({}, {}{})", o.image, to_string(shape.format),
                     size ? format_bytes(*size) : std::string("size unknown until decoded"),
                     size && shape.format != Format::Raw ? " uncompressed" : "");
}

std::string unmount_text(const TargetInfo& t) {
  std::string s;
  if (t.is_file || t.disk.mounted().empty()) return s;
  s += "\nfirst unmounting:";
  for (const auto& m : t.disk.mounted()) s += "\n  " + m;
  return s;
}

std::string confirm_text(const WriteOptions& o, const std::vector<TargetInfo>& ts, const ImageShape& shape) {
  if (ts.size() == 1) {
    const TargetInfo& t = ts.front();
    std::string s = t.is_file ? "piprov will OVERWRITE the file:\n  " : "piprov will ERASE everything on:\n  ";
    return s + describe_target(t) + "\n" + with_image(o, shape) + unmount_text(t);
  }
  std::string s = fmt::format("piprov will ERASE everything on these {} targets:", ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) s += fmt::format("\n {}. {}", i + 1, describe_target(ts[i]));
  s += "\n" + with_image(o, shape);
  for (const auto& t : ts) s += unmount_text(t);
  return s;
}

}  // namespace

std::vector<TargetInfo> check_targets(const WriteOptions& o) {
  std::vector<TargetInfo> out;
  std::vector<std::string> refused(o.targets.size());
  std::vector<std::pair<std::string, std::string>> seen;  // identity, path
  std::size_t index = 0;
  for (const auto& path : o.targets) {
    try {
      TargetInfo t = inspect_target(path, {.unmount = o.unmount, .overwrite = o.overwrite}, o.intent);
      check_image_not_on_target(o.image, t);
      std::string id = identity(t);
      for (const auto& [other_id, other] : seen)
        if (other_id == id)
          throw Error(ErrorKind::Usage, fmt::format("{} is the same {} as {}: give each target once", path,
                                                    t.is_file ? "file" : "disk", other));
      seen.emplace_back(id, path);
      out.push_back(std::move(t));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Usage) throw;
      refused[index] = e.what();
    }
    ++index;
  }
  refuse(refused);
  return out;
}

void check_complete_image(const PartitionTable& t, std::optional<std::uint64_t> size, Format format,
                          const std::string& image, const std::string& outcome) {
  if (!size || *size == 0) return;
  for (const auto& p : t.parts)
    if (p.offset + p.size > *size)
      throw Error(ErrorKind::Usage,
                  fmt::format("{} ends at byte {} ({}){}, before its partition {} ends (byte {}, {}): an incomplete "
                              "download or a cut copy; download it again ({})",
                              image, *size, format_bytes(*size), format == Format::Raw ? "" : " once decoded", p.number,
                              p.offset + p.size, format_bytes(p.offset + p.size), outcome));
}

void check_sizes(const std::vector<TargetInfo>& ts, const ImageShape& shape, const std::string& image) {
  std::vector<std::string> refused(ts.size());
  const auto& size = shape.size;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const TargetInfo& t = ts[i];
    // (A disk of size 0 is the write guard's: NoMedium.)
    if (size && (t.capacity || !t.is_file) && *size > t.capacity)
      refused[i] = (fmt::format("the image {} ({}, {} bytes) is larger than {} ({}, {} bytes): nothing was written",
                                image, format_bytes(*size), *size, t.path,
                                t.is_file ? "free space" : format_bytes(t.capacity), t.capacity));
  }
  refuse(refused);
}

void confirm_targets(const WriteOptions& o, const std::vector<TargetInfo>& ts, const ImageShape& shape) {
  bool overwrites = false;
  for (const auto& t : ts) overwrites = overwrites || !t.is_file || t.exists;
  if (!overwrites || o.assume_yes) return;
  std::vector<std::string> paths;
  paths.reserve(ts.size());
  for (const auto& t : ts) paths.push_back(t.path);
  if (!o.confirm)
    throw Error(ErrorKind::Usage,
                fmt::format("refusing to write {} without confirmation: pass --yes", join(paths, ", ")));
  if (!o.confirm(confirm_text(o, ts, shape)))
    throw Error(ErrorKind::Usage, fmt::format("not confirmed: nothing was written to {}", join(paths, ", ")));
}

}  // namespace piprov::image
