#include "image/partition_table.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>

#include "core/enum_names.hpp"

namespace piprov::image {
namespace {

constexpr std::uint64_t kSector = 512;

constexpr EnumName<TableScheme> kTableSchemeNames[] = {
    {TableScheme::None, ""}, {TableScheme::Dos, "dos"}, {TableScheme::Gpt, "gpt"}};

std::uint64_t le_bytes(std::span<const std::byte> b, std::size_t off, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= std::to_integer<std::uint64_t>(b[off + i]) << (8 * i);
  return v;
}

/// GPT GUID bytes (mixed endian) as "0FC63DAF-8483-4772-8E79-3D69D8477DE4".
std::string guid_text(std::span<const std::byte> b, std::size_t off) {
  return fmt::format("{:08X}-{:04X}-{:04X}-{:04X}-{:012X}", le_bytes(b, off, 4), le_bytes(b, off + 4, 2),
                     le_bytes(b, off + 6, 2),
                     (std::to_integer<unsigned>(b[off + 8]) << 8) | std::to_integer<unsigned>(b[off + 9]), [&] {
                       std::uint64_t v = 0;
                       for (int i = 10; i < 16; ++i) v = (v << 8) | std::to_integer<std::uint64_t>(b[off + i]);
                       return v;
                     }());
}

PartKind mbr_kind(unsigned type) {
  switch (type) {
    case 0x83: return PartKind::Linux;
    case 0x01:
    case 0x04:
    case 0x06:
    case 0x0b:
    case 0x0c:
    case 0x0e:
    case 0xef: return PartKind::Fat;
    default: return PartKind::Other;
  }
}

/// DOS extended, Windows LBA extended, Linux extended (block/partitions/msdos.c is_extended_partition()).
bool is_extended_mbr_type(unsigned type) { return type == 0x05 || type == 0x0f || type == 0x85; }

/// The entry at byte `e` of an MBR or EBR sector: its type, first sector (relative) and sector count.
struct MbrEntryFields {
  unsigned type = 0;
  std::uint64_t start = 0, sectors = 0;
};

MbrEntryFields mbr_entry_fields(std::span<const std::byte> sector, std::size_t e) {
  return {std::to_integer<unsigned>(sector[e + 4]), le_bytes(sector, e + 8, 4), le_bytes(sector, e + 12, 4)};
}

bool has_mbr_signature(std::span<const std::byte> sector) {
  return sector.size() >= kSector && sector[510] == std::byte{0x55} && sector[511] == std::byte{0xaa};
}

PartKind gpt_kind(const std::string& guid) {
  if (guid == "0FC63DAF-8483-4772-8E79-3D69D8477DE4") return PartKind::Linux;  // Linux filesystem data
  if (guid == "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7" || guid == "C12A7328-F81F-11D2-BA4B-00A0C93EC93B")
    return PartKind::Fat;  // Microsoft basic data, EFI system partition
  return PartKind::Other;
}

void read_gpt(std::span<const std::byte> head, PartitionTable& t) {
  if (head.size() < 2 * kSector || std::memcmp(head.data() + kSector, "EFI PART", 8) != 0) {
    t.note = "protective MBR without a GPT header at LBA 1";
    return;
  }
  const std::uint64_t entries_lba = le_bytes(head, kSector + 72, 8);
  const std::uint64_t count = le_bytes(head, kSector + 80, 4), esize = le_bytes(head, kSector + 84, 4);
  if (esize < 128 || count > 1024 || entries_lba * kSector + count * esize > head.size()) {
    t.note = "GPT entries outside the first 64 KiB";
    return;
  }
  t.scheme = TableScheme::Gpt;
  t.gpt = GptBounds{le_bytes(head, kSector + 48, 8), le_bytes(head, kSector + 32, 8)};
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::size_t off = static_cast<std::size_t>(entries_lba * kSector + i * esize);
    if (std::all_of(head.begin() + off, head.begin() + off + 16, [](std::byte c) { return c == std::byte{0}; }))
      continue;
    const std::uint64_t first = le_bytes(head, off + 32, 8), last = le_bytes(head, off + 40, 8);
    if (last < first) continue;
    std::string guid = guid_text(head, off);
    std::string unique = guid_text(head, off + 16);
    std::transform(unique.begin(), unique.end(), unique.begin(), [](unsigned char c) { return std::tolower(c); });
    t.parts.push_back(
        {static_cast<unsigned>(i + 1), first * kSector, (last - first + 1) * kSector, guid, gpt_kind(guid), unique});
  }
}

}  // namespace

std::string_view scheme_name(TableScheme s) { return enum_name(kTableSchemeNames, s); }

std::optional<TableScheme> parse_scheme(std::string_view name) { return parse_enum(kTableSchemeNames, name); }

PartitionTable parse_partition_table(std::span<const std::byte> head, std::uint64_t image_size) {
  PartitionTable t;
  if (!has_mbr_signature(head)) return t;
  bool protective = false;
  std::vector<PartitionEntry> mbr;
  for (unsigned i = 0; i < 4; ++i) {
    const auto [type, start, sectors] = mbr_entry_fields(head, 446 + 16 * i);
    if (type == 0 || sectors == 0) continue;
    if (type == 0xee) protective = true;
    mbr.push_back({i + 1, start * kSector, sectors * kSector, fmt::format("0x{:02x}", type), mbr_kind(type), "",
                   is_extended_mbr_type(type)});
  }
  if (protective) {
    read_gpt(head, t);
  } else {
    t.scheme = TableScheme::Dos;
    t.parts = std::move(mbr);
  }
  return bounded_table(std::move(t), image_size);
}

PartitionTable bounded_table(PartitionTable t, std::uint64_t image_size) {
  std::vector<PartitionEntry> sorted;
  std::copy_if(t.parts.begin(), t.parts.end(), std::back_inserter(sorted),
               [](const PartitionEntry& p) { return !p.logical; });
  for (const auto& p : t.parts)  // a logical one: only whether it lies inside the image
    if (p.logical && image_size && p.offset + p.size > image_size) {
      t.note = fmt::format("partition {} lies outside the image", p.number);
      t.parts.clear();
      return t;
    }
  std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.offset < b.offset; });
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const bool overlaps = i + 1 < sorted.size() && sorted[i].offset + sorted[i].size > sorted[i + 1].offset;
    const bool outside = sorted[i].offset < kSector || (image_size && sorted[i].offset + sorted[i].size > image_size);
    if (overlaps || outside) {
      t.note = fmt::format("partition {} {}", sorted[i].number,
                           overlaps ? "overlaps the next one" : "lies outside the image");
      t.parts.clear();
      break;
    }
  }
  return t;
}

LogicalPartitions read_logical_partitions(const PartitionEntry& extended, unsigned first_number, const ReadAtFn& read,
                                          unsigned max_ebrs) {
  LogicalPartitions out;
  const std::uint64_t begin = extended.offset, end = extended.offset + extended.size;
  std::vector<std::uint64_t> seen;  // the EBRs read (a chain that comes back to one is a cycle)
  std::array<std::byte, kSector> ebr{};
  for (std::uint64_t at = begin;;) {
    if (seen.size() >= max_ebrs) {  // one logical partition per EBR: the EBRs bound both
      out.note = fmt::format("the EBR chain of extended partition {} goes on past {} EBRs: the rest was not read",
                             extended.number, max_ebrs);
      break;
    }
    if (std::find(seen.begin(), seen.end(), at) != seen.end()) {
      out.note = fmt::format("the EBR chain of extended partition {} comes back to byte {} (a loop): it was read once",
                             extended.number, at);
      break;
    }
    seen.push_back(at);
    ++out.ebrs;
    read(ebr, at);
    if (!has_mbr_signature(ebr)) {
      out.note = fmt::format("extended partition {} has no EBR (55 AA) at byte {}", extended.number, at);
      break;
    }
    const MbrEntryFields part = mbr_entry_fields(ebr, 446), link = mbr_entry_fields(ebr, 446 + 16);
    if (part.type != 0 && part.sectors != 0 && !is_extended_mbr_type(part.type)) {
      const std::uint64_t offset = at + part.start * kSector, size = part.sectors * kSector;
      const unsigned number = first_number + static_cast<unsigned>(out.parts.size());
      if (offset <= at || offset + size > end) {  // its EBR sector or a byte past the container: not inside it
        out.note = fmt::format("logical partition {} (EBR at byte {}) does not lie inside extended partition {}",
                               number, at, extended.number);
        break;
      }
      out.parts.push_back(
          {number, offset, size, fmt::format("0x{:02x}", part.type), mbr_kind(part.type), "", false, true});
    }
    if (!is_extended_mbr_type(link.type) || link.sectors == 0) break;  // the last EBR
    const std::uint64_t next = begin + link.start * kSector;
    if (next + kSector > end) {
      out.note =
          fmt::format("the EBR chain of extended partition {} links outside it (byte {})", extended.number, next);
      break;
    }
    at = next;
  }
  return out;
}

PartitionTable with_logical_partitions(PartitionTable t, const ReadAtFn& read) {
  if (t.scheme != TableScheme::Dos) return t;
  const std::vector<PartitionEntry> primary = t.parts;
  unsigned next = 5, ebrs_left = kMaxLogicalPartitions;
  for (const auto& p : primary) {
    if (!p.extended) continue;
    if (ebrs_left == 0) {
      if (t.logical_note.empty()) t.logical_note = fmt::format("extended partition {} was not read", p.number);
      break;
    }
    LogicalPartitions l = read_logical_partitions(p, next, read, ebrs_left);
    next += static_cast<unsigned>(l.parts.size());
    ebrs_left -= std::min(ebrs_left, l.ebrs);
    t.parts.insert(t.parts.end(), l.parts.begin(), l.parts.end());
    if (t.logical_note.empty()) t.logical_note = l.note;
  }
  return t;
}

std::optional<PartitionEntry> last_data_partition(const PartitionTable& t) {
  std::optional<PartitionEntry> last;
  for (const auto& p : t.parts)
    if (!p.extended && (!last || p.offset + p.size > last->offset + last->size)) last = p;
  if (last && !t.logical_note.empty())  // an unread logical partition may lie after it, inside such a container
    for (const auto& e : t.parts)
      if (e.extended && e.offset + e.size > last->offset) return std::nullopt;
  return last;
}

std::optional<PartitionEntry> extended_container_of(const PartitionTable& t, const PartitionEntry& p) {
  if (!p.logical) return std::nullopt;
  for (const auto& e : t.parts)
    if (e.extended && p.offset >= e.offset && p.offset < e.offset + e.size) return e;
  return std::nullopt;
}

}  // namespace piprov::image
