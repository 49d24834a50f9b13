#pragma once
// Hashes: XXH3-128 for verify (speed), SHA-256 for published checksums
// (SHA256SUMS format) and boot stamps. Libraries: xxhash, OpenSSL libcrypto.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace piprov {

/// Streaming XXH3-128. hex() gives 32 lowercase hex digits.
class Xxh3_128 {
 public:
  Xxh3_128();
  ~Xxh3_128();
  Xxh3_128(const Xxh3_128&) = delete;
  Xxh3_128& operator=(const Xxh3_128&) = delete;
  void update(std::span<const std::byte> data);
  std::string hex() const;

 private:
  void* state_;
};

/// Streaming SHA-256. hex() gives 64 lowercase hex digits.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::span<const std::byte> data);
  std::string hex();  ///< finalises; call once

 private:
  void* ctx_;
};

/// SHA-256 of a whole file as hex. Throws Error{Io} when it cannot be read.
std::string sha256_file(const std::filesystem::path& path);

}  // namespace piprov
