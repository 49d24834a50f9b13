// Histogram: HdrHistogram 3-significant-digit scheme, relative error <= 0.1%.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bench/histogram.hpp"

using piprov::bench::Histogram;

TEST(Histogram, SmallValuesAreExact) {
  for (std::uint64_t v : {0ull, 1ull, 999ull, 2047ull}) {
    EXPECT_EQ(Histogram::index_of(v), v);
    EXPECT_EQ(Histogram::lowest_of(Histogram::index_of(v)), v);
    EXPECT_EQ(Histogram::highest_of(Histogram::index_of(v)), v);
  }
}

TEST(Histogram, BucketBoundariesAreContiguous) {
  // every bucket starts right after the previous one ends, up to the max value
  std::size_t last = Histogram::index_of(Histogram::kMaxValue);
  for (std::size_t i = 1; i <= last; ++i) ASSERT_EQ(Histogram::lowest_of(i), Histogram::highest_of(i - 1) + 1) << i;
  EXPECT_EQ(Histogram::index_of(2048), 2048u);
  EXPECT_EQ(Histogram::index_of(2049), 2048u);  // width 2 from 2048 on
  EXPECT_EQ(Histogram::index_of(2050), 2049u);
  EXPECT_EQ(Histogram::highest_of(last), Histogram::kMaxValue);
}

TEST(Histogram, RelativeErrorBelowOneThousandth) {
  std::mt19937_64 rng(42);
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    // log-uniform values from 1 ns to ~1 hour
    std::uint64_t v = static_cast<std::uint64_t>(std::exp(std::uniform_real_distribution<double>(0, 29)(rng)));
    double mid = Histogram::midpoint_of(Histogram::index_of(v));
    double err = v ? std::fabs(mid - static_cast<double>(v)) / static_cast<double>(v) : 0;
    worst = std::max(worst, err);
    ASSERT_LE(Histogram::lowest_of(Histogram::index_of(v)), v);
    ASSERT_GE(Histogram::highest_of(Histogram::index_of(v)), v);
  }
  EXPECT_LE(worst, 1.0 / 2048 + 1e-12);
  EXPECT_LT(worst, 0.001);
  EXPECT_GT(worst, 0.0002);  // the bound is approached, not trivially zero
}

TEST(Histogram, PercentilesOfUniformValues) {
  Histogram h;
  for (std::uint64_t v = 1; v <= 100000; ++v) h.record(v * 1000);  // 1 us .. 100 ms
  EXPECT_EQ(h.count(), 100000u);
  EXPECT_EQ(h.min(), 1000u);
  EXPECT_EQ(h.max(), 100000000u);
  EXPECT_DOUBLE_EQ(h.mean(), 50000500.0);
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9, 99.99}) {
    double want = p / 100.0 * 100000 * 1000;
    EXPECT_NEAR(h.percentile(p), want, want * 0.001) << p;
  }
  EXPECT_DOUBLE_EQ(h.percentile(100), 100000000.0);
  EXPECT_DOUBLE_EQ(h.percentile(0), 1000.0);
}

TEST(Histogram, StdevAndMerge) {
  Histogram a, b;
  for (int i = 0; i < 1000; ++i) a.record(1000);
  for (int i = 0; i < 1000; ++i) b.record(3000);
  EXPECT_DOUBLE_EQ(a.stdev(), 0.0);
  a.merge(b);
  EXPECT_EQ(a.count(), 2000u);
  EXPECT_DOUBLE_EQ(a.mean(), 2000.0);
  EXPECT_NEAR(a.stdev(), 1000.0, 1e-6);
  EXPECT_EQ(a.min(), 1000u);
  EXPECT_EQ(a.max(), 3000u);
  EXPECT_DOUBLE_EQ(a.percentile(50), 1000.0);
  EXPECT_NEAR(a.percentile(50.1), 3000.0, 3.0);
}

TEST(Histogram, BucketsRoundTrip) {
  Histogram h;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 5000; ++i) h.record(rng() % 50000000);
  auto r = Histogram::from_buckets(h.buckets(), h.min(), h.max(), h.sum(), h.sum_sq());
  EXPECT_EQ(r.count(), h.count());
  for (double p : {50.0, 99.0, 99.99}) EXPECT_DOUBLE_EQ(r.percentile(p), h.percentile(p));
  EXPECT_DOUBLE_EQ(r.mean(), h.mean());
}

TEST(Histogram, HugeValuesClamp) {
  Histogram h;
  h.record(UINT64_MAX);
  EXPECT_EQ(h.max(), Histogram::kMaxValue);
  EXPECT_EQ(h.count(), 1u);
}
