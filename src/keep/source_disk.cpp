// The checks of the disk backup and clone read (source_disk.hpp).
#include "keep/source_disk.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "image/ext_map.hpp"

namespace piprov::keep {

std::optional<WriteSubject> inspect_source_disk(const std::string& disk) {
  struct stat st {};
  if (::stat(disk.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return std::nullopt;
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
