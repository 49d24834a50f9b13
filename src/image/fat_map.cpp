#include "image/fat_map.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace piprov::image {
namespace {

std::uint64_t fat_le(std::span<const std::byte> b, std::size_t off, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= std::to_integer<std::uint64_t>(b[off + i]) << (8 * i);
  return v;
}

bool power_of_two(std::uint64_t v) { return v && (v & (v - 1)) == 0; }

std::string fat_label(std::span<const std::byte> s, std::size_t off) {
  std::string l;
  for (std::size_t i = 0; i < 11; ++i) l += static_cast<char>(std::to_integer<unsigned char>(s[off + i]));
  while (!l.empty() && (l.back() == ' ' || l.back() == '\0')) l.pop_back();
  return l == "NO NAME" ? std::string() : l;
}

/// Entry `n` of one FAT copy starting at `base`.
std::uint64_t fat_entry(std::span<const std::byte> fats, std::uint64_t base, unsigned bits, std::uint64_t n) {
  if (bits == 32) return fat_le(fats, base + 4 * n, 4) & 0x0FFFFFFF;
  if (bits == 16) return fat_le(fats, base + 2 * n, 2);
  std::uint64_t v = fat_le(fats, base + n + n / 2, 2);
  return n & 1 ? v >> 4 : v & 0xFFF;
}

}  // namespace

std::optional<FatLayout> parse_fat_boot_sector(std::span<const std::byte> s, std::uint64_t volume_bytes,
                                               std::string* why) {
  auto no = [why](std::string w) -> std::optional<FatLayout> {
    *why = std::move(w);
    return std::nullopt;
  };
  if (s.size() < 512 || s[510] != std::byte{0x55} || s[511] != std::byte{0xaa}) return no("no FAT boot sector");
  const unsigned jump = std::to_integer<unsigned>(s[0]);
  if (jump != 0xEB && jump != 0xE9) return no("no FAT boot sector");
  FatLayout l;
  l.bytes_per_sector = static_cast<unsigned>(fat_le(s, 11, 2));
  const std::uint64_t spc = fat_le(s, 13, 1), reserved = fat_le(s, 14, 2), root_entries = fat_le(s, 17, 2);
  l.fats = static_cast<unsigned>(fat_le(s, 16, 1));
  const std::uint64_t fat_sectors = fat_le(s, 22, 2) ? fat_le(s, 22, 2) : fat_le(s, 36, 4);
  const std::uint64_t total = fat_le(s, 19, 2) ? fat_le(s, 19, 2) : fat_le(s, 32, 4);
  if (l.bytes_per_sector < 512 || l.bytes_per_sector > 4096 || !power_of_two(l.bytes_per_sector) ||
      !power_of_two(spc) || spc > 128 || reserved == 0 || l.fats < 1 || l.fats > 2 || fat_sectors == 0 || total == 0)
    return no("FAT boot sector damaged (BPB fields out of range)");
  const std::uint64_t bps = l.bytes_per_sector;
  const std::uint64_t root_sectors = (root_entries * 32 + bps - 1) / bps;
  const std::uint64_t meta = reserved + l.fats * fat_sectors + root_sectors;
  l.volume_bytes = total * bps;
  if (l.volume_bytes > volume_bytes)
    return no(fmt::format("FAT volume ({} bytes) larger than its partition ({} bytes)", l.volume_bytes, volume_bytes));
  if (meta >= total) return no("FAT boot sector damaged (no data region)");
  l.cluster_bytes = spc * bps;
  l.clusters = (total - meta) / spc;
  l.bits = l.clusters < 4085 ? 12 : l.clusters < 65525 ? 16 : 32;
  if (l.bits == 32 && (root_entries != 0 || fat_le(s, 22, 2) != 0))
    return no("FAT boot sector damaged (FAT32 with a FAT16 root directory)");
  l.fat_offset = reserved * bps;
  l.fat_bytes = fat_sectors * bps;
  l.data_offset = meta * bps;
  if ((l.clusters + 2) * l.bits > l.fat_bytes * 8) return no("FAT damaged (smaller than its clusters need)");
  l.label = fat_label(s, l.bits == 32 ? 71 : 43);
  return l;
}

std::vector<ByteRange> fat_free_ranges(const FatLayout& l, std::span<const std::byte> fats) {
  std::vector<ByteRange> out;
  if (fats.size() < l.fat_bytes * l.fats) return out;
  for (std::uint64_t n = 2; n < l.clusters + 2; ++n) {
    bool used = false;
    for (unsigned f = 0; f < l.fats && !used; ++f) used = fat_entry(fats, f * l.fat_bytes, l.bits, n) != 0;
    if (used) continue;
    const std::uint64_t b = l.data_offset + (n - 2) * l.cluster_bytes;
    if (!out.empty() && out.back().end == b)
      out.back().end += l.cluster_bytes;
    else
      out.push_back({b, b + l.cluster_bytes});
  }
  return out;
}

namespace {

class FatScan final : public FsScan {
 public:
  FatScan(Capture& cap, std::uint64_t offset, std::uint64_t size) : cap_(cap), offset_(offset), size_(size) {
    cap_.request(offset_, 512, [this](std::vector<std::byte>&& d) { boot(d); });
  }
  void update() override {}
  const std::vector<ByteRange>& free_ranges() const override { return free_; }
  const std::string& failure() const override { return failure_; }
  std::string type() const override { return "vfat"; }
  std::string label() const override { return layout_ ? layout_->label : std::string(); }

 private:
  void boot(const std::vector<std::byte>& d) {
    std::string why;
    layout_ = parse_fat_boot_sector(d, size_, &why);
    if (!layout_) {
      failure_ = why;
      return;
    }
    const std::uint64_t n = layout_->fat_bytes * layout_->fats;
    if (n > kMaxFatBytes) {
      failure_ = fmt::format("its FATs ({} bytes) are larger than piprov reads ({} bytes)", n, kMaxFatBytes);
      return;
    }
    if (!cap_.request(offset_ + layout_->fat_offset, n, [this](std::vector<std::byte>&& f) { fats(f); }))
      failure_ = "its FAT comes before its boot sector";
  }
  void fats(const std::vector<std::byte>& f) {
    for (auto r : fat_free_ranges(*layout_, f)) free_.push_back({offset_ + r.begin, offset_ + r.end});
  }

  Capture& cap_;
  std::uint64_t offset_, size_;
  std::optional<FatLayout> layout_;
  std::vector<ByteRange> free_;
  std::string failure_;
};

}  // namespace

std::unique_ptr<FsScan> make_fat_scan(Capture& cap, std::uint64_t offset, std::uint64_t size) {
  return std::make_unique<FatScan>(cap, offset, size);
}

}  // namespace piprov::image
