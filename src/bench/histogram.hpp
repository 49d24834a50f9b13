#pragma once
// Log-linear latency histogram, HdrHistogram's bucket scheme at 3 significant
// digits: values < 2048 are counted exactly; above, every power-of-two range
// [2^k, 2^(k+1)) is split into 1024 equal sub-buckets. A value is reported as
// its bucket's midpoint, so the relative error is <= 1/2048 (< 0.1%).
// Source: HdrHistogram (Gil Tene), "significant digits" = 3 gives 2048
// sub-buckets. fio's own histograms use 64 sub-buckets (<= 0.78%; fio
// stat.h, "FIO_IO_U_PLAT_BITS").
#include <cstdint>
#include <utility>
#include <vector>

namespace piprov::bench {

class Histogram {
 public:
  static constexpr unsigned kSubBucketBits = 11;  ///< 2048 sub-buckets
  static constexpr std::uint64_t kSubBuckets = 1ull << kSubBucketBits;
  static constexpr std::uint64_t kHalf = kSubBuckets / 2;       ///< 1024
  static constexpr std::uint64_t kMaxValue = (1ull << 46) - 1;  ///< ~19.5 h in ns; larger values clamp

  Histogram();

  /// Counts `value` (ns by convention) `count` times; values above kMaxValue clamp.
  void record(std::uint64_t value, std::uint64_t count = 1);
  /// Adds every count of `other` (same scheme).
  void merge(const Histogram& other);
  void clear();

  std::uint64_t count() const { return total_; }
  std::uint64_t min() const { return total_ ? min_ : 0; }  ///< exact
  std::uint64_t max() const { return max_; }               ///< exact
  double mean() const;                                     ///< exact (from the running sum)
  double stdev() const;                                    ///< population standard deviation

  /// Value at percentile `p` in [0, 100]: the smallest bucket whose cumulative
  /// count reaches ceil(p/100 * count), reported as its midpoint and clamped
  /// to [min, max]. 0 when empty.
  double percentile(double p) const;

  /// Bucket index of `value`, and the [lowest, highest] values of a bucket.
  static std::size_t index_of(std::uint64_t value);
  static std::uint64_t lowest_of(std::size_t index);
  static std::uint64_t highest_of(std::size_t index);
  static double midpoint_of(std::size_t index);

  /// Non-empty buckets as (lowest value, count), ascending (for JSON).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> buckets() const;
  /// Rebuilds from buckets() output plus the exact min/max/sum kept beside it.
  static Histogram from_buckets(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& buckets, std::uint64_t min,
                                std::uint64_t max, double sum, double sum_sq);
  double sum() const { return sum_; }
  double sum_sq() const { return sum_sq_; }

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
  double sum_ = 0;
  double sum_sq_ = 0;
};

}  // namespace piprov::bench
