#include <gtest/gtest.h>
#include <cstdio>
#include <string>

#include "core/hashing.hpp"

using namespace piprov;

namespace {
std::span<const std::byte> bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}
}  // namespace

TEST(Sha256, KnownVectors) {
  Sha256 empty;
  EXPECT_EQ(empty.hex(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 abc;
  abc.update(bytes("ab"));
  abc.update(bytes("c"));
  EXPECT_EQ(abc.hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Xxh3_128, StreamingEqualsOneShotAndDiffersOnOneBit) {
  std::string data(100000, 'x');
  Xxh3_128 a, b, c;
  a.update(bytes(data));
  b.update(bytes(data.substr(0, 333)));
  b.update(bytes(data.substr(333)));
  data[5000] ^= 1;
  c.update(bytes(data));
  EXPECT_EQ(a.hex(), b.hex());
  EXPECT_NE(a.hex(), c.hex());
  EXPECT_EQ(a.hex().size(), 32u);
}

TEST(Sha256File, MatchesSha256sum) {
  char path[] = "/tmp/piprov-sha-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string content = "piprov\n";
  ASSERT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
  close(fd);
  std::string cmd = std::string("sha256sum ") + path;
  FILE* p = popen(cmd.c_str(), "r");
  char out[65] = {0};
  ASSERT_EQ(fread(out, 1, 64, p), 64u);
  pclose(p);
  EXPECT_EQ(sha256_file(path), std::string(out));
  unlink(path);
}
