#include "image/checksum.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "core/error.hpp"

namespace piprov::image {
namespace {

std::string lower_hex(std::string h, const std::string& from) {
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
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
  std::ifstream in(sums_file);
  if (!in) throw Error(ErrorKind::Usage, fmt::format("cannot read {} (--sha256-file)", sums_file));
  const std::string name = std::filesystem::path(image).filename().string();
  static const std::regex gnu(R"(^\\?([0-9a-fA-F]{64}) [ *](.+?)\r?$)");
  static const std::regex bsd(R"(^SHA256 ?\((.+)\) ?= ?([0-9a-fA-F]{64})\r?$)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
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
