// The space outside every partition, as backup reads it (outside_partitions.hpp).
#include "keep/outside_partitions.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/units.hpp"
#include "image/target_writer.hpp"

namespace piprov::keep {

namespace {

constexpr std::uint64_t kOutsideSector = 512;

void add_outside(std::vector<OutsideRegion>& out, std::uint64_t b, std::uint64_t e, std::string where, bool read,
                 std::string why) {
  if (e > b) out.push_back({b, e - b, std::move(where), read, std::move(why)});
}

/// A gap between partitions: the part within the first MiB is read (what a boot loader or the
/// table may keep there, as `piprov write` always writes the first MiB), the rest not.
void add_gap(std::vector<OutsideRegion>& out, std::uint64_t b, std::uint64_t e, const std::string& where) {
  const std::uint64_t head = std::clamp<std::uint64_t>(image::kHeadBytes, b, e);
  add_outside(out, b, head, where, true, "within the first MiB (partition table, boot loader)");
  add_outside(out, head, e, where, false, "");
}

/// The end of a GPT disk after its last partition (at `b`): the backup entries and header read, the rest not.
void add_gpt_tail(std::vector<OutsideRegion>& out, std::uint64_t b, std::uint64_t disk,
                  const std::optional<image::GptBounds>& gpt, const std::string& where) {
  if (!gpt) {
    add_outside(out, b, disk, where, true, "the GPT header at LBA 1 could not be read, so its backup is not placed");
    return;
  }
  const std::uint64_t alternate = gpt->alternate_lba, last_usable = gpt->last_usable_lba;
  const std::uint64_t tb = (last_usable + 1) * kOutsideSector;
  const std::uint64_t te = std::min(disk, (alternate + 1) * kOutsideSector);
  if (last_usable >= alternate || tb < b || tb >= disk) {
    add_outside(out, b, disk, where, true,
                fmt::format("the GPT header's last usable LBA {} and backup header LBA {} do not place its backup "
                            "after the last partition",
                            last_usable, alternate));
    return;
  }
  add_gap(out, b, tb, where);
  add_outside(out, tb, te, "at the end of the disk", true,
              fmt::format("the GPT's backup entries and header (LBA {} to {})", last_usable + 1, alternate));
  add_outside(out, te, disk, "after the GPT's backup header", false, "");
}

}  // namespace

std::vector<OutsideRegion> outside_partitions(const image::PartitionTable& table, std::uint64_t disk_bytes) {
  std::vector<OutsideRegion> out;
  const image::PartitionTable t = image::bounded_table(table, disk_bytes);
  if (t.scheme == image::TableScheme::None || !t.note.empty() || t.parts.empty()) return out;
  auto parts = t.parts;
  std::sort(parts.begin(), parts.end(), [](auto& a, auto& b) { return a.offset < b.offset; });
  add_outside(out, 0, parts.front().offset, fmt::format("before partition {}", parts.front().number), true,
              "the partition table and boot loader area");
  for (std::size_t i = 0; i + 1 < parts.size(); ++i)
    add_gap(out, parts[i].offset + parts[i].size, parts[i + 1].offset,
            fmt::format("between partitions {} and {}", parts[i].number, parts[i + 1].number));
  const std::uint64_t end = parts.back().offset + parts.back().size;
  const std::string after = fmt::format("after partition {}", parts.back().number);
  if (t.scheme == image::TableScheme::Gpt)
    add_gpt_tail(out, end, disk_bytes, t.gpt, after);
  else
    add_gap(out, end, disk_bytes, after);
  return out;
}

void merge_skip_map(const image::WriteMap& filter, const std::vector<OutsideRegion>& regions, image::WriteMap& out) {
  std::vector<image::ByteRange> all = filter.all();
  for (const auto& r : regions)
    if (!r.read) all.push_back({r.offset, r.offset + r.size});
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
  std::uint64_t done = 0;
  for (const auto& r : all) {
    const std::uint64_t b = std::max(r.begin, done);
    if (r.end > b) out.add({b, r.end});
    done = std::max(done, r.end);
  }
}

std::uint64_t unpartitioned_skipped_bytes(const std::vector<OutsideRegion>& regions) {
  std::uint64_t n = 0;
  for (const auto& r : regions)
    if (!r.read) n += r.size;
  return n;
}

std::string outside_region_line(const OutsideRegion& r) {
  // A region under a MiB (a GPT's backup) by its size alone: "from 256.0 MiB to 256.0 MiB" says nothing.
  const std::string span = r.size < (1u << 20) ? fmt::format("{} {}", format_bytes(r.size), r.where)
                                               : fmt::format("{} {} (from {} to {})", format_bytes(r.size), r.where,
                                                             format_bytes(r.offset), format_bytes(r.offset + r.size));
  if (r.read) return fmt::format("outside the partitions: {}: {}: read in full", span, r.why);
  return fmt::format("unpartitioned: {}: not copied ({})", span, r.why.empty() ? "zeros in the image" : r.why);
}

nlohmann::json outside_regions_json(const std::vector<OutsideRegion>& regions) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : regions)
    out.push_back({{"where", r.where}, {"offset", r.offset}, {"size", r.size}, {"read", r.read}, {"why", r.why}});
  return out;
}

}  // namespace piprov::keep
