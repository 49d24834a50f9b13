#pragma once
// Rendering of `eeprom check` / `eeprom explain` results as text (for people)
// and JSON (schema "piprov.eeprom.check/1", documented in docs/eeprom.md).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "eeprom/check.hpp"

namespace piprov::eeprom {

/// What was checked, for the report header.
struct CheckContext {
  std::string source_kind;  ///< "file" | "stdin" | "image" | "live"
  std::string path;         ///< file or image path ("-" for stdin, "" for live)
  std::string board_from;   ///< "--board" | "image" | "device tree" | "default"
  bool strict = false;
  // --image only
  std::optional<std::size_t> image_size;
  std::optional<int> image_chip;  ///< 2711 | 2712
  std::optional<std::size_t> bootconf_offset;
  // --image / --live
  std::optional<BootloaderInfo> bootloader;
  // --live only
  std::optional<std::string> release_channel;
  std::string release_channel_file;
};

/// JSON object of one finding: rule, severity, line (null for 0), key, message, fix, source.
nlohmann::json finding_json(const Finding& f);
/// The whole check result (see docs/eeprom.md "JSON schema").
nlohmann::json check_json(const CheckReport& r, const CheckOptions& opt, const CheckContext& ctx);
/// Text report: header, effective BOOT_ORDER, one block per finding, summary line.
std::string check_text(const CheckReport& r, const CheckOptions& opt, const CheckContext& ctx);

/// Serialises with 2-space indent; bytes that are not UTF-8 (a config may hold
/// any bytes) become U+FFFD instead of throwing.
std::string dump_json(const nlohmann::json& j);

/// JSON for `eeprom explain`: boot_order, value, modes[], words, board.
nlohmann::json explain_json(const BootOrder& o, std::optional<Board> board);

}  // namespace piprov::eeprom
