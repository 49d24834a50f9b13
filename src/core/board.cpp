#include "core/board.hpp"

#include "core/file.hpp"

namespace piprov {

bool BoardId::raspberry_pi() const { return model.find("Raspberry Pi") != std::string::npos; }

std::string BoardId::compatible_text() const {
  std::string shown = compatible.value_or("");
  for (auto& ch : shown)
    if (ch == '\0') ch = ',';
  while (!shown.empty() && shown.back() == ',') shown.pop_back();
  return shown;
}

std::optional<PiBoard> board_from_compatible(std::string_view c) {
  if (c.find("bcm2712") != std::string_view::npos) return PiBoard::Pi5;
  if (c.find("bcm2711") == std::string_view::npos) return std::nullopt;
  if (c.find("raspberrypi,4-compute-module") != std::string_view::npos) return PiBoard::Cm4;
  if (c.find("raspberrypi,400") != std::string_view::npos) return PiBoard::Pi400;
  return PiBoard::Pi4;
}

BoardId detect_board(const SysRoot& root) {
  BoardId id;
  for (const char* dir : {"/proc/device-tree", "/sys/firmware/devicetree/base"}) {
    const std::string d(dir);
    if (!id.compatible) id.compatible = read_system_file(root(d + "/compatible"));
    if (id.model.empty()) id.model = read_attr(root(d + "/model"));
  }
  if (id.compatible) id.board = board_from_compatible(*id.compatible);
  return id;
}

}  // namespace piprov
