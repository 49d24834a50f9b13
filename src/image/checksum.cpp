#include "image/checksum.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <regex>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace piprov::image {
namespace {

// SHA256SUMS files list a few hundred files at most; a device or a huge file
// given by mistake is refused after a bounded read.
constexpr std::size_t kMaxSumsBytes = 16u << 20;

std::string lower_hex(std::string h, const std::string& from) {
  h = to_lower(h);
  if (h.size() != 64 || h.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw Error(ErrorKind::Usage, fmt::format("invalid SHA-256 '{}' {}: expected 64 hex digits", h, from));
  return h;
}

}  // namespace

std::string expected_sha256(const std::string& hex, const std::string& sums_file, const std::string& image) {
  if (!hex.empty() && !sums_file.empty())
    throw Error(ErrorKind::Usage, "give either --sha256 or --sha256-file, not both");
  if (!hex.empty()) return lower_hex(hex, "(--sha256)");
  if (sums_file.empty()) return "";
  std::optional<std::string> text;
  try {
    text = read_file_capped(sums_file, kMaxSumsBytes, "checksum file");
  } catch (const Error&) {
    text.reset();  // reported below as a usage error, like an oversized file
  }
  if (!text) throw Error(ErrorKind::Usage, fmt::format("cannot read {} (--sha256-file)", sums_file));
  const std::string name = std::filesystem::path(image).filename().string();
  static const std::regex gnu(R"(^\\?([0-9a-fA-F]{64}) [ *](.+?)\r?$)");
  static const std::regex bsd(R"(^SHA256 ?\((.+)\) ?= ?([0-9a-fA-F]{64})\r?$)");
  std::smatch m;
  for (const std::string& line : split(*text, '\n')) {
    std::string h, file;
    if (std::regex_match(line, m, gnu))
      h = m[1], file = m[2];
    else if (std::regex_match(line, m, bsd))
      file = m[1], h = m[2];
    else
      continue;
    if (file == image || std::filesystem::path(file).filename().string() == name)
      return lower_hex(h, "in " + sums_file);
  }
  throw Error(ErrorKind::Usage,
              fmt::format("{} has no SHA-256 line for {}: check the file names it lists", sums_file, name));
}

}  // namespace piprov::image
