#include "bench/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace piprov::bench {

std::size_t Histogram::index_of(std::uint64_t v) {
  if (v < kSubBuckets) return static_cast<std::size_t>(v);
  unsigned shift = static_cast<unsigned>(std::bit_width(v)) - kSubBucketBits;  // v >> shift in [1024, 2048)
  return static_cast<std::size_t>(kSubBuckets + (shift - 1) * kHalf + ((v >> shift) - kHalf));
}

std::uint64_t Histogram::lowest_of(std::size_t i) {
  if (i < kSubBuckets) return i;
  std::uint64_t k = (i - kSubBuckets) / kHalf;  // shift - 1
  std::uint64_t sub = (i - kSubBuckets) % kHalf + kHalf;
  return sub << (k + 1);
}

std::uint64_t Histogram::highest_of(std::size_t i) {
  if (i < kSubBuckets) return i;
  std::uint64_t k = (i - kSubBuckets) / kHalf;
  return lowest_of(i) + (1ull << (k + 1)) - 1;
}

double Histogram::midpoint_of(std::size_t i) {
  return (static_cast<double>(lowest_of(i)) + static_cast<double>(highest_of(i))) / 2.0;
}

Histogram::Histogram() : counts_(index_of(kMaxValue) + 1, 0) {}

void Histogram::record(std::uint64_t v, std::uint64_t n) {
  if (n == 0) return;
  if (v > kMaxValue) v = kMaxValue;
  counts_[index_of(v)] += n;
  total_ += n;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  double d = static_cast<double>(v);
  sum_ += d * static_cast<double>(n);
  sum_sq_ += d * d * static_cast<double>(n);
}

void Histogram::merge(const Histogram& o) {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
  total_ += o.total_;
  if (o.total_) {
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
  }
  sum_ += o.sum_;
  sum_sq_ += o.sum_sq_;
}

void Histogram::clear() { *this = Histogram(); }

double Histogram::mean() const { return total_ ? sum_ / static_cast<double>(total_) : 0.0; }

double Histogram::stdev() const {
  if (total_ < 2) return 0.0;
  double m = mean();
  double var = sum_sq_ / static_cast<double>(total_) - m * m;
  return var > 0 ? std::sqrt(var) : 0.0;
}

double Histogram::percentile(double p) const {
  if (!total_) return 0.0;
  if (p >= 100.0) return static_cast<double>(max_);
  p = std::max(p, 0.0);
  auto want = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total_)));
  want = std::max<std::uint64_t>(want, 1);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= want) return std::clamp(midpoint_of(i), static_cast<double>(min_), static_cast<double>(max_));
  }
  return static_cast<double>(max_);
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> Histogram::buckets() const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (std::size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i]) out.emplace_back(lowest_of(i), counts_[i]);
  return out;
}

Histogram Histogram::from_buckets(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& b, std::uint64_t mn,
                                  std::uint64_t mx, double sum, double sum_sq) {
  Histogram h;
  for (const auto& [low, n] : b) {
    h.counts_[index_of(std::min(low, kMaxValue))] += n;
    h.total_ += n;
  }
  if (h.total_) {
    h.min_ = mn;
    h.max_ = mx;
  }
  h.sum_ = sum;
  h.sum_sq_ = sum_sq;
  return h;
}

}  // namespace piprov::bench
