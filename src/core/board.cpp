#include "core/board.hpp"

#include <algorithm>
#include <initializer_list>

#include "core/enum_names.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

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
  if (c.find("bcm2712") != std::string_view::npos) {
    if (c.find("raspberrypi,5-compute-module") != std::string_view::npos) return PiBoard::Cm5;
    if (c.find("raspberrypi,500") != std::string_view::npos) return PiBoard::Pi500;
    return PiBoard::Pi5;
  }
  if (c.find("bcm2711") == std::string_view::npos) return std::nullopt;
  if (c.find("raspberrypi,4-compute-module") != std::string_view::npos) return PiBoard::Cm4;
  if (c.find("raspberrypi,400") != std::string_view::npos) return PiBoard::Pi400;
  return PiBoard::Pi4;
}

namespace {
constexpr EnumName<PiBoard> kBoardNames[] = {
    {PiBoard::Pi4, "pi4"}, {PiBoard::Pi400, "pi400"}, {PiBoard::Cm4, "cm4"},
    {PiBoard::Pi5, "pi5"}, {PiBoard::Pi500, "pi500"}, {PiBoard::Cm5, "cm5"},
};
constexpr EnumName<PiBoard> kBoardTitles[] = {
    {PiBoard::Pi4, "Raspberry Pi 4B"}, {PiBoard::Pi400, "Raspberry Pi 400"}, {PiBoard::Cm4, "Compute Module 4"},
    {PiBoard::Pi5, "Raspberry Pi 5"},  {PiBoard::Pi500, "Raspberry Pi 500"}, {PiBoard::Cm5, "Compute Module 5"},
};
}  // namespace

std::optional<PiBoard> parse_board(std::string_view name) { return parse_enum(kBoardNames, to_lower(name)); }
std::string_view board_name(PiBoard b) { return enum_name(kBoardNames, b); }
std::string_view board_title(PiBoard b) { return enum_name(kBoardTitles, b); }
bool is_bcm2712(PiBoard b) { return b == PiBoard::Pi5 || b == PiBoard::Pi500 || b == PiBoard::Cm5; }
std::vector<std::string_view> board_dtbs(PiBoard b) {
  switch (b) {
    case PiBoard::Pi4: return {"bcm2711-rpi-4-b.dtb"};
    case PiBoard::Pi400: return {"bcm2711-rpi-400.dtb"};
    case PiBoard::Cm4: return {"bcm2711-rpi-cm4.dtb", "bcm2711-rpi-cm4-io.dtb"};
    case PiBoard::Pi5: return {"bcm2712-rpi-5-b.dtb"};
    case PiBoard::Pi500: return {"bcm2712-rpi-500.dtb"};
    case PiBoard::Cm5:
      return {"bcm2712-rpi-cm5-cm5io.dtb", "bcm2712-rpi-cm5-cm4io.dtb", "bcm2712-rpi-cm5l-cm5io.dtb",
              "bcm2712-rpi-cm5l-cm4io.dtb"};
  }
  return {};
}

bool is_model_filter(std::string_view f) {
  static constexpr std::string_view kModels[] = {"pi1",   "pi2", "pi3", "pi3+", "pi4",  "pi400", "cm4",  "cm4s", "pi5",
                                                 "pi500", "cm5", "pi0", "pi0w", "pi02", "cm3",   "cm3+", "none"};
  return std::find(std::begin(kModels), std::end(kModels), to_lower(f)) != std::end(kModels);
}

bool model_filter_matches(std::string_view filter, std::string_view model) {
  struct Row {
    std::string_view filter;
    std::initializer_list<std::string_view> boards;
  };
  static const Row kTable[] = {
      {"pi1", {"pi1", "cm1"}},
      {"pi2", {"pi2"}},
      {"pi3", {"pi3", "pi3+", "cm3", "cm3+"}},
      {"pi3+", {"pi3+"}},
      {"pi4", {"pi4", "pi400", "cm4", "cm4s"}},
      {"pi400", {"pi400"}},
      {"cm4", {"cm4"}},
      {"cm4s", {"cm4s"}},
      {"pi5", {"pi5", "pi500", "cm5"}},
      {"pi500", {"pi500"}},
      {"cm5", {"cm5"}},
      {"pi0", {"pi0", "pi0w", "pi02"}},
      {"pi0w", {"pi0w"}},
      {"pi02", {"pi02"}},
      {"cm3", {"cm3", "cm3+"}},
      {"cm3+", {"cm3+"}},
  };
  const std::string f = to_lower(filter);
  for (const auto& r : kTable)
    if (r.filter == f) return std::find(r.boards.begin(), r.boards.end(), model) != r.boards.end();
  return false;
}

unsigned board_type_code(PiBoard b) {
  switch (b) {
    case PiBoard::Pi4: return 0x11;
    case PiBoard::Pi400: return 0x13;
    case PiBoard::Cm4: return 0x14;
    case PiBoard::Pi5: return 0x17;
    case PiBoard::Cm5: return 0x18;
    case PiBoard::Pi500: return 0x19;
  }
  return 0;
}

std::string_view board_choices() {
  static const std::string choices = enum_choices(kBoardNames);
  return choices;
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
