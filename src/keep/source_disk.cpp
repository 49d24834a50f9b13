// The checks of the disk backup and clone read (source_disk.hpp).
#include "keep/source_disk.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include "core/blockdev.hpp"
#include "core/error.hpp"
#include "image/ext_map.hpp"

namespace piprov::keep {

std::optional<WriteSubject> inspect_source_disk(const std::string& disk) {
  struct stat st {};
  if (::stat(disk.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    // An image file attached as a loop device whose file systems are mounted is read through
    // that mount's changes: in use, as the loop device itself (not a dirty journal to e2fsck).
    const WriteSubject file = inspect_write_subject(disk);
    if (!file.loop_device.empty()) {
      const std::vector<std::string> mounted = read_whole_disk(file.loop_device).mounted();
      if (!mounted.empty())
        throw Error(ErrorKind::Usage,
                    fmt::format("{} is in use: it is the backing file of {} ({}); piprov reads a disk that is not "
                                "mounted, so that its file systems do not change while they are read; unmount them "
                                "(umount)",
                                disk, file.loop_device, fmt::join(mounted, ", ")));
    }
    return std::nullopt;
  }
  return check_write(disk, WriteIntent::ReadDisk);
}

void refuse_damaged_source(const std::vector<image::PartitionSkip>& parts, const std::string& disk, bool force,
                           std::string_view verb) {
  if (force) return;
  for (const auto& p : parts) {
    if (p.full_reason.find(image::kExtHasErrors) == std::string::npos &&
        p.full_reason.find(image::kExtNeedsRecovery) == std::string::npos)
      continue;
    throw Error(ErrorKind::Usage,
                fmt::format("partition {} of {} ({}): {}; run e2fsck on it first (e2fsck -f), or give --force to "
                            "{} as it is (read in full)",
                            p.number, disk, p.fs.empty() ? p.type : p.fs, p.full_reason, verb));
  }
}

nlohmann::json source_partitions_json(const std::vector<image::PartitionSkip>& parts) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : parts)
    out.push_back({{"number", p.number},
                   {"type", p.type},
                   {"fs", p.fs},
                   {"label", p.label},
                   {"size", p.size},
                   {"skipped_bytes", p.skipped_bytes},
                   {"full_reason", p.full_reason}});
  return out;
}

}  // namespace piprov::keep
