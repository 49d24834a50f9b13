#include "support/eeprom_fixture.hpp"

#include <fmt/format.h>

#include "eeprom/image.hpp"

namespace piprov::eeprom::test {

std::vector<std::string> ids(const Findings& f) {
  std::vector<std::string> out;
  for (const auto& x : f)
    out.push_back(fmt::format("{}@{}:{}", x.rule, x.line == 0 ? std::string("-") : std::to_string(x.line),
                              severity_name(x.severity)));
  return out;
}

namespace {
void be32(std::string& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b += static_cast<char>((v >> (24 - 8 * i)) & 0xff);
}
void align(std::string& b, std::size_t a) {
  while (b.size() % a) b += '\xff';
}
void pad_to(std::string& b, std::size_t boundary) {
  std::size_t target = (b.size() + boundary - 1) / boundary * boundary;
  if (target - b.size() > 8) {
    be32(b, kPadMagic);
    be32(b, static_cast<std::uint32_t>(target - b.size() - 4));
  }
  b.resize(target, '\xff');
}
}  // namespace

std::string make_image(std::size_t size, const std::vector<std::pair<std::string, std::string>>& files,
                       const std::string& extra_text) {
  std::string b;
  std::string code = "code section " + extra_text;
  be32(b, kMagic);
  be32(b, static_cast<std::uint32_t>(code.size()));
  b += code;
  align(b, 8);
  pad_to(b, 4096);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [name, content] = files[i];
    be32(b, kFileMagic);
    be32(b, static_cast<std::uint32_t>(content.size() + 16));
    std::string n = name;
    n.resize(12, '\0');
    b += n + std::string(4, '\0') + content;
    align(b, 8);
    if (i + 1 < files.size()) pad_to(b, 4096);
  }
  b.resize(size, '\xff');
  return b;
}

}  // namespace piprov::eeprom::test
