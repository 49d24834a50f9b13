#include "core/hashing.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <unistd.h>
#include <xxhash.h>
#include <cerrno>
#include <vector>

#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"

namespace piprov {

Xxh3_128::Xxh3_128() : state_(XXH3_createState()) { XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_)); }
Xxh3_128::~Xxh3_128() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void Xxh3_128::update(std::span<const std::byte> d) {
  XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), d.data(), d.size());
}
std::string Xxh3_128::hex() const {
  XXH128_hash_t h = XXH3_128bits_digest(static_cast<XXH3_state_t*>(state_));
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr); }
Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
void Sha256::update(std::span<const std::byte> d) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), d.data(), d.size());
}
std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len);
  std::string out;
  for (unsigned i = 0; i < len; ++i) out += fmt::format("{:02x}", md[i]);
  return out;
}

std::string sha256_file(const std::filesystem::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw io_error("cannot open " + path.string(), errno);
  Sha256 h;
  std::vector<std::byte> buf(1 << 20);
  for (;;) {
    FdResult r = read_fd_some(fd.get(), buf);
    if (r.err) throw io_error("cannot read " + path.string(), r.err);
    if (r.bytes == 0) break;
    h.update({buf.data(), r.bytes});
  }
  return h.hex();
}

}  // namespace piprov
