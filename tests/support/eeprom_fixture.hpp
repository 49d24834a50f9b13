#pragma once
// Shared helpers for the eeprom tests: finding summaries and synthetic images.
#include <string>
#include <vector>

#include "eeprom/finding.hpp"

namespace piprov::eeprom::test {

/// "rule@line:severity" for each finding, in report order (line 0 shown as "-").
std::vector<std::string> ids(const Findings& f);

/// A synthetic pieeprom.bin of `size` bytes: a code section, a padding
/// section, then `files` (name, content) as file sections each followed by
/// padding up to the next 4 KiB boundary, the rest 0xff (the layout of the
/// real images, built here so the tests run without ../shared/data).
std::string make_image(std::size_t size, const std::vector<std::pair<std::string, std::string>>& files,
                       const std::string& extra_text = "");

}  // namespace piprov::eeprom::test
