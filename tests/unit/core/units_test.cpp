#include <gtest/gtest.h>

#include "support/testsupport.hpp"

#include "core/error.hpp"
#include "core/units.hpp"

using namespace piprov;

TEST(ParseSize, BinarySuffixesAreFioDefaults) {
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("4k"), 4096u);
  EXPECT_EQ(parse_size("4K"), 4096u);
  EXPECT_EQ(parse_size("4KiB"), 4096u);
  EXPECT_EQ(parse_size("4M"), 4u * 1048576u);
  EXPECT_EQ(parse_size("3G"), 3ull << 30);
  EXPECT_EQ(parse_size("1T"), 1ull << 40);
}

TEST(ParseSize, DecimalWhenSpelledKB) {
  EXPECT_EQ(parse_size("4KB"), 4000u);
  EXPECT_EQ(parse_size("1MB"), 1000000u);
}

TEST(ParseSize, RejectsGarbageAsUsageError) {
  for (const char* bad : {"", "k", "4x", "-1", "4 k", "99999999999999999999", "16777216T"}) {
    piprov::test::expect_error(ErrorKind::Usage, "block size", [&] { parse_size(bad, "block size"); });
  }
}

TEST(FormatBytes, BinaryUnits) {
  EXPECT_EQ(format_bytes(17), "17 B");
  EXPECT_EQ(format_bytes(4096), "4.0 KiB");
  EXPECT_EQ(format_bytes(256ull << 20), "256.0 MiB");
  EXPECT_EQ(format_bytes(2040109465ull), "1.9 GiB");
}

TEST(FormatRate, MiBvsMB) {
  EXPECT_EQ(format_mib_s(104857600.0), "100.0 MiB/s");
  EXPECT_EQ(format_mb_s(104857600.0), "104.9 MB/s");
}

TEST(FormatDuration, Ranges) {
  EXPECT_EQ(format_duration(0.844), "0.84 s");
  EXPECT_EQ(format_duration(12.34), "12.3 s");
  EXPECT_EQ(format_duration(245), "4m05s");
  EXPECT_EQ(format_duration(3720), "1h02m");
}
