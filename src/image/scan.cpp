#include "image/scan.hpp"

#include <algorithm>
#include <cstring>

namespace piprov::image {

void for_each_written(std::uint64_t offset, std::uint64_t len, const std::vector<ByteRange>& skipped,
                      const std::function<void(std::uint64_t begin, std::uint64_t end)>& fn) {
  const std::uint64_t end = offset + len;
  auto it = std::upper_bound(skipped.begin(), skipped.end(), offset,
                             [](std::uint64_t v, const ByteRange& r) { return v < r.end; });
  std::uint64_t at = offset;
  for (; it != skipped.end() && it->begin < end; ++it) {
    if (it->begin > at) fn(at, it->begin);
    at = std::max(at, std::min(it->end, end));
  }
  if (at < end) fn(at, end);
}

std::uint64_t bytes_within(const std::vector<ByteRange>& skipped, std::uint64_t begin, std::uint64_t end) {
  std::uint64_t n = 0;
  for (const auto& r : skipped) {
    std::uint64_t b = std::max(r.begin, begin), e = std::min(r.end, end);
    if (b < e) n += e - b;
  }
  return n;
}

bool ReaderCapture::request(std::uint64_t offset, std::size_t len, Done done) {
  queue_.push_back({offset, len, std::move(done)});
  return true;
}

void ReaderCapture::run() {
  for (std::size_t i = 0; i < queue_.size(); ++i) {  // callbacks append: index, not iterators
    const Req r = queue_[i];
    if (r.offset > size_ || r.len > size_ - r.offset) continue;  // past the end: never served, as in a stream
    std::vector<std::byte> data(r.len);
    read_(data, r.offset);
    r.done(std::move(data));
  }
  queue_.clear();
}

bool StreamCapture::request(std::uint64_t offset, std::size_t len, Done done) {
  if (offset < floor_) return false;
  pending_.push_back({offset, std::vector<std::byte>(len), offset, std::move(done)});
  return true;
}

void StreamCapture::feed(std::span<const std::byte> data, std::uint64_t offset) {
  floor_ = offset;
  const std::uint64_t end = offset + data.size();
  for (bool again = true; again;) {
    again = false;
    std::vector<Req> completed;
    for (std::size_t i = 0; i < pending_.size();) {
      Req& r = pending_[i];
      const std::uint64_t r_end = r.offset + r.data.size();
      std::uint64_t b = std::max(r.have_until, offset), e = std::min(r_end, end);
      if (b < e) {
        std::memcpy(r.data.data() + (b - r.offset), data.data() + (b - offset), e - b);
        r.have_until = e;
      }
      if (r.have_until >= r_end) {
        completed.push_back(std::move(r));
        pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    for (auto& r : completed) {  // callbacks may request more, served from this same data
      r.done(std::move(r.data));
      again = true;
    }
  }
  floor_ = end;
}

}  // namespace piprov::image
