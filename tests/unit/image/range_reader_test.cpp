// read_range(): the read-back engine. Every piece in order with its device
// offset and the device's bytes, whatever the depth and read size; a target
// that ends early, and a consumer that throws, stop it cleanly.
#include <gtest/gtest.h>

#include <stdexcept>
#include <tuple>

#include "image/range_reader.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

/// A regular file of `size` bytes whose byte at offset o is o % 251.
TargetInfo pattern_file(const std::filesystem::path& p, std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = static_cast<char>(i % 251);
  test::write_file(p, s);
  TargetInfo t;
  t.path = p.string();
  t.is_file = true;
  t.exists = true;
  t.logical_block = 4096;
  return t;
}

class ReadRange : public ::testing::TestWithParam<std::tuple<unsigned, std::size_t>> {};

TEST_P(ReadRange, HandsEveryPieceInOrderWithTheDevicesBytes) {
  // Plain variables, not a structured binding: clang (the sanitizer build)
  // does not let a lambda capture a structured binding before C++20's P1091 support.
  const unsigned depth = std::get<0>(GetParam());
  const std::size_t read_bytes = std::get<1>(GetParam());
  test::TempDir d("piprov-range");
  const std::size_t size = 1u << 20;
  TargetInfo t = pattern_file(d.path / "dev.img", size);
  UniqueFd fd = open_target_for_read(t);
  // A range starting at a block and ending mid-block: the tail is read rounded up.
  const std::uint64_t from = 3 * 4096, len = size - from - 100;
  std::uint64_t next = from;
  std::size_t pieces = 0;
  read_range(fd.get(), t, from, len,
             [&](std::span<const std::byte> data, std::uint64_t offset) {
               ASSERT_EQ(offset, next);
               ASSERT_EQ(data.size(), std::min<std::uint64_t>(read_bytes, from + len - offset));
               for (std::size_t i = 0; i < data.size(); ++i)
                 ASSERT_EQ(data[i], static_cast<std::byte>((offset + i) % 251)) << "at " << offset + i;
               next += data.size();
               ++pieces;
             },
             {.read_bytes = read_bytes, .depth = depth});
  EXPECT_EQ(next, from + len);
  EXPECT_EQ(pieces, (len + read_bytes - 1) / read_bytes);
}

INSTANTIATE_TEST_SUITE_P(DepthsAndSizes, ReadRange,
                         ::testing::Combine(::testing::Values(1u, 2u, 4u, 9u),
                                            ::testing::Values(std::size_t{4096}, std::size_t{64} << 10,
                                                              std::size_t{1} << 20)));

TEST(ReadRangeErrors, ATargetThatEndsFirstNamesItsEnd) {
  test::TempDir d("piprov-range");
  TargetInfo t = pattern_file(d.path / "dev.img", 40960);
  UniqueFd fd = open_target_for_read(t);
  std::uint64_t consumed = 0;
  test::expect_error(ErrorKind::Verify, t.path + " ends at byte offset 40960 (", [&] {
    read_range(fd.get(), t, 0, 100000, [&](std::span<const std::byte> data, std::uint64_t) { consumed += data.size(); },
               {.read_bytes = 8192, .depth = 3});
  });
  EXPECT_EQ(consumed, 40960u);  // every whole piece before the end was handed over
}

TEST(ReadRangeErrors, AConsumerErrorStopsTheReaders) {
  test::TempDir d("piprov-range");
  TargetInfo t = pattern_file(d.path / "dev.img", 1u << 20);
  UniqueFd fd = open_target_for_read(t);
  int calls = 0;
  EXPECT_THROW(read_range(fd.get(), t, 0, 1u << 20,
                          [&](std::span<const std::byte>, std::uint64_t offset) {
                            ++calls;
                            if (offset == 3 * 4096) throw std::runtime_error("mismatch");
                          },
                          {.read_bytes = 4096, .depth = 4}),
               std::runtime_error);
  EXPECT_EQ(calls, 4);
}

}  // namespace
}  // namespace piprov::image
