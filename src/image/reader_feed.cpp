#include "image/reader_feed.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstring>

#include "core/cancel.hpp"
#include "core/units.hpp"
#include "image/target_writer.hpp"

namespace piprov::image {
namespace {

/// The unit a raw image is read in (it has no blocks of its own).
constexpr std::uint64_t kFeedRawUnit = 4u << 20;

/// Whether [b, e) lies inside one range of `skipped` (sorted, merged).
bool feed_covered(const std::vector<ByteRange>& skipped, std::uint64_t b, std::uint64_t e) {
  auto it = std::upper_bound(skipped.begin(), skipped.end(), b,
                             [](std::uint64_t v, const ByteRange& r) { return v < r.end; });
  return it != skipped.end() && it->begin <= b && it->end >= e;
}

}  // namespace

std::string feed_summary(const FeedStats& s, Format f) {
  const bool raw = f == Format::Raw;
  const std::string unit = raw ? "4 MiB pieces" : f == Format::Zstd ? "zst frames" : "xz blocks";
  return fmt::format("{} {} of {} {} ({}); {} ({}) wholly in free space not {}", raw ? "read" : "decoded",
                     s.units_decoded, s.units, unit, format_bytes(s.bytes_decoded), s.units_not_decoded,
                     format_bytes(s.bytes_not_decoded), raw ? "read" : "decoded (their checks not run)");
}

ReaderFeed::ReaderFeed(ImageReader& reader, const WriteMap* skip, unsigned threads, std::uint64_t ahead_bytes)
    : reader_(reader), skip_(skip), size_(reader.size()), budget_(ahead_bytes) {
  for (const ByteRange& b : reader_.blocks()) {
    if (reader_.format() != Format::Raw) {
      units_.push_back(b);
      continue;
    }
    for (std::uint64_t at = b.begin; at < b.end; at += kFeedRawUnit)
      units_.push_back({at, std::min(b.end, at + kFeedRawUnit)});
  }
  const std::vector<ByteRange> skipped = skip_ ? skip_->all() : std::vector<ByteRange>{};
  stats_.units = units_.size();
  for (std::size_t i = 0; i < units_.size(); ++i) {
    if (feed_covered(skipped, units_[i].begin, units_[i].end)) {
      ++stats_.units_not_decoded;
      stats_.bytes_not_decoded += units_[i].size();
    } else {
      need_.push_back(i);
    }
  }
  reader_.drop_cache();
  unsigned n = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<std::size_t>(n, need_.size()));
  // The count is set before any thread starts: a thread may run before
  // emplace_back() has grown workers_ (it constructs the thread first), and a
  // count of 0 in its wait condition would leave the first unit untaken.
  nworkers_ = n;
  for (unsigned i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
}

ReaderFeed::~ReaderFeed() {
  {
    std::lock_guard lk(m_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ReaderFeed::work() {
  for (;;) {
    std::size_t k = 0;
    {
      std::unique_lock lk(m_);
      cv_.wait(lk, [this] {
        if (stop_ || next_ >= need_.size()) return true;
        const std::uint64_t bytes = units_[need_[next_]].size();
        // One unit per thread always starts (from the one the writers wait
        // for on); more within the budget, so large blocks (pi-gen's 24 MiB)
        // still decode on every core and small ones run ahead.
        return next_ < consumed_ + nworkers_ || (ahead_bytes_ + bytes <= budget_ && next_ < consumed_ + 4 * nworkers_);
      });
      if (stop_ || next_ >= need_.size()) return;
      k = next_++;
      slots_[k];
      ahead_bytes_ += units_[need_[k]].size();
    }
    const ByteRange u = units_[need_[k]];
    std::vector<std::byte> data;
    std::exception_ptr error;
    try {
      data.resize(u.size());
      reader_.read_at(data, u.begin);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard lk(m_);
      Slot& s = slots_[k];
      s.data = std::move(data);
      s.error = error;
      s.ready = true;
      if (!error) {
        ++stats_.units_decoded;
        stats_.bytes_decoded += u.size();
      }
    }
    cv_.notify_all();
  }
}

ReaderFeed::Slot& ReaderFeed::wait_for(std::size_t u) {
  std::unique_lock lk(m_);
  cv_.wait(lk, [this, u] {
    auto it = slots_.find(u);
    return it != slots_.end() && it->second.ready;
  });
  Slot& s = slots_[u];
  if (s.error) std::rethrow_exception(s.error);
  return s;
}

void ReaderFeed::release_before(std::size_t u) {
  {
    std::lock_guard lk(m_);
    for (; consumed_ < u; ++consumed_) {
      auto it = slots_.find(consumed_);
      if (it == slots_.end()) continue;
      ahead_bytes_ -= units_[need_[consumed_]].size();
      slots_.erase(it);
    }
  }
  cv_.notify_all();
}

bool ReaderFeed::wholly_skipped(std::uint64_t offset, std::uint64_t len) const {
  if (!skip_ || offset < kHeadBytes || len == 0) return false;
  const auto gaps = skip_->skipped_in(offset, len);
  return gaps.size() == 1 && gaps.front().begin == offset && gaps.front().end == offset + len;
}

std::size_t ReaderFeed::fill(std::span<std::byte> buf, std::uint64_t offset) {
  throw_if_cancelled("while decoding");
  if (offset >= size_) return 0;
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size_ - offset));
  const std::uint64_t end = offset + n;
  // Units wholly before this buffer are done with.
  std::size_t first = consumed_;
  while (first < need_.size() && units_[need_[first]].end <= offset) ++first;
  if (first != consumed_) release_before(first);
  if (wholly_skipped(offset, n)) return n;
  const std::vector<ByteRange> gaps = skip_ ? skip_->skipped_in(offset, n) : std::vector<ByteRange>{};
  for (const ByteRange& g : gaps) std::memset(buf.data() + (g.begin - offset), 0, g.size());
  for_each_written(offset, n, gaps, [&](std::uint64_t b, std::uint64_t e) {
    for (std::size_t k = first; k < need_.size() && units_[need_[k]].begin < e; ++k) {
      const ByteRange u = units_[need_[k]];
      if (u.end <= b) continue;
      // The units before k are done with: releasing them first lets k start
      // even when one thread or large blocks leave no room ahead.
      if (k > consumed_) release_before(k);
      const Slot& s = wait_for(k);
      const std::uint64_t cb = std::max(b, u.begin), ce = std::min(e, u.end);
      std::memcpy(buf.data() + (cb - offset), s.data.data() + (cb - u.begin), ce - cb);
    }
  });
  std::size_t done = first;
  while (done < need_.size() && units_[need_[done]].end <= end) ++done;
  if (done != consumed_) release_before(done);
  return n;
}

}  // namespace piprov::image
