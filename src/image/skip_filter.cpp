#include "image/skip_filter.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "core/strings.hpp"
#include "core/units.hpp"
#include "image/ext_map.hpp"
#include "image/fat_map.hpp"
#include "image/target_writer.hpp"

namespace piprov::image {

void WriteMap::add(ByteRange r) {
  if (r.end <= r.begin) return;
  std::lock_guard lk(m_);
  bytes_ += r.size();
  if (!ranges_.empty() && ranges_.back().end == r.begin)
    ranges_.back().end = r.end;
  else
    ranges_.push_back(r);
}

std::vector<ByteRange> WriteMap::skipped_in(std::uint64_t offset, std::uint64_t len) const {
  std::lock_guard lk(m_);
  std::vector<ByteRange> out;
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), offset,
                             [](std::uint64_t v, const ByteRange& r) { return v < r.end; });
  for (; it != ranges_.end() && it->begin < offset + len; ++it)
    out.push_back({std::max(it->begin, offset), std::min(it->end, offset + len)});
  return out;
}

std::vector<ByteRange> WriteMap::all() const {
  std::lock_guard lk(m_);
  return ranges_;
}

std::uint64_t WriteMap::skipped_bytes() const {
  std::lock_guard lk(m_);
  return bytes_;
}

SkipFilter::SkipFilter(const PartitionTable& table) {
  auto stream = std::make_unique<StreamCapture>();
  stream_ = stream.get();
  cap_ = std::move(stream);
  use_table(table);
}

SkipFilter::SkipFilter(const ReadAtFn& read, std::uint64_t image_size, const PartitionTable& table) {
  auto reader = std::make_unique<ReaderCapture>(read, image_size);
  ReaderCapture& rc = *reader;
  cap_ = std::move(reader);
  use_table(bounded_table(table, image_size));
  rc.run();  // each file system's superblock, descriptors, bitmaps, FATs
  std::vector<ByteRange> all;
  for (const auto& sc : scans_) {
    if (!sc) continue;
    sc->update();
    if (!sc->failure().empty()) continue;
    for_each_skippable(sc->free_ranges(), 0, image_size, [&all](ByteRange r) { all.push_back(r); });
  }
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
  for (const ByteRange& r : all) map_.add(r);
}

void SkipFilter::for_each_skippable(const std::vector<ByteRange>& free, std::uint64_t begin, std::uint64_t end,
                                    const std::function<void(ByteRange)>& fn) const {
  auto it =
      std::upper_bound(free.begin(), free.end(), begin, [](std::uint64_t v, const ByteRange& r) { return v < r.end; });
  for (; it != free.end() && it->begin < end; ++it) {
    // Whole 4 KiB blocks only (every logical block size divides them), never the first MiB.
    const std::uint64_t b = (std::max<std::uint64_t>(it->begin, kHeadBytes) + 4095) / 4096 * 4096;
    const std::uint64_t e = it->end / 4096 * 4096;
    if (e <= b || e - b < kMinSkipBytes) continue;
    const std::uint64_t cb = std::max(b, begin), ce = std::min(e, end);
    if (cb < ce) fn({cb, ce});
  }
}
SkipFilter::~SkipFilter() = default;

void SkipFilter::use_table(const PartitionTable& table) {
  table_ = table;
  for (const auto& p : table_.parts) {
    if (p.kind == PartKind::Linux)
      scans_.push_back(make_ext_scan(*cap_, p.offset, p.size));
    else if (p.kind == PartKind::Fat)
      scans_.push_back(make_fat_scan(*cap_, p.offset, p.size));
    else
      scans_.push_back(nullptr);
  }
}

void SkipFilter::decide(std::span<const std::byte> data, std::uint64_t offset) {
  std::size_t at = 0;
  while (at < data.size()) {
    const std::uint64_t pos = offset + at;
    if (pos % kDecideWindow == 0 || !window_valid_) plan_window(pos / kDecideWindow * kDecideWindow);
    const std::uint64_t end = std::min(offset + data.size(), (pos / kDecideWindow + 1) * kDecideWindow);
    for (const ByteRange& r : window_)
      if (r.end > pos && r.begin < end) map_.add({std::max(r.begin, pos), std::min(r.end, end)});
    const auto n = static_cast<std::size_t>(end - pos);
    stream_->feed(data.subspan(at, n), pos);  // what it teaches applies from the next window on
    at += n;
  }
}

void SkipFilter::plan_window(std::uint64_t begin) {
  const std::uint64_t end = begin + kDecideWindow;
  window_.clear();
  window_valid_ = true;
  for (const auto& s : scans_) {
    if (!s) continue;
    s->update();
    if (!s->failure().empty()) continue;
    for_each_skippable(s->free_ranges(), begin, end, [this](ByteRange r) { window_.push_back(r); });
  }
  std::sort(window_.begin(), window_.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
}

std::vector<PartitionSkip> SkipFilter::partitions() const {
  std::vector<PartitionSkip> out;
  const auto skipped = map_.all();
  for (std::size_t i = 0; i < table_.parts.size(); ++i) {
    const auto& p = table_.parts[i];
    PartitionSkip r{p.number, p.type, "", "", p.offset, p.size, bytes_within(skipped, p.offset, p.offset + p.size), ""};
    const FsScan* s = i < scans_.size() ? scans_[i].get() : nullptr;
    if (!s)
      r.full_reason = fmt::format("type {} is not a file system piprov reads", p.type);
    else if (!s->failure().empty())
      r.full_reason = fmt::format("type {}: {}", p.type, s->failure());
    else
      r.fs = s->type(), r.label = s->label();
    out.push_back(std::move(r));
  }
  return out;
}

std::string SkipFilter::note() const {
  if (table_.scheme == TableScheme::None) return "no partition table (MBR or GPT)";
  return table_.note;
}

std::string skip_summary(bool full, std::uint64_t image_bytes, std::uint64_t skipped,
                         const std::vector<PartitionSkip>& parts, const std::string& note) {
  if (full) return fmt::format("wrote every byte of {} (--full)", format_bytes(image_bytes));
  std::string s = fmt::format("wrote {} of {}", format_bytes(image_bytes - skipped), format_bytes(image_bytes));
  std::vector<std::string> where;
  for (const auto& p : parts)
    if (p.skipped_bytes)
      where.push_back(fmt::format("{}{} in {}", format_bytes(p.skipped_bytes), where.empty() ? " free" : "",
                                  p.label.empty() ? "partition " + std::to_string(p.number) : p.label));
  s += where.empty() ? "; skipped nothing" : "; skipped " + join(where, ", ");
  if (!note.empty()) s += "; " + note + ": written in full";
  for (const auto& p : parts)
    if (!p.full_reason.empty()) s += fmt::format("; partition {}: {}: written in full", p.number, p.full_reason);
  return s;
}

}  // namespace piprov::image
