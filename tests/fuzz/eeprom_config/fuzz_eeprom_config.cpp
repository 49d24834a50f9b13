// Fuzz target: any bytes as a bootloader config, on every board, with and
// without a wanted mode; plus BOOT_ORDER parsing/explaining and the
// set_boot_order edit (which must keep a parseable config).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "eeprom/boot_order.hpp"
#include "eeprom/check.hpp"
#include "eeprom/edit.hpp"
#include "eeprom/report.hpp"

using namespace piprov::eeprom;
using piprov::dump_json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const Board boards[] = {Board::Pi4, Board::Cm4, Board::Pi5};
  CheckOptions opt;
  opt.board = boards[size % 3];
  opt.want = size % 5 == 4 ? std::nullopt : std::optional<Want>(static_cast<Want>(size % 4));
  CheckInput in;
  in.config_text = std::string(text);
  in.release_channel = std::string(text.substr(0, 8));
  in.bootloader = BootloaderInfo{static_cast<std::int64_t>(size) * 7919, "", "fuzz"};
  auto r = check_config(in, opt);
  CheckContext ctx;
  ctx.source_kind = piprov::eeprom::SourceKind::Stdin;
  ctx.path = "-";
  ctx.board_from = "default";
  (void)dump_json(check_json(r, opt, ctx));
  (void)check_text(r, opt, ctx);

  auto p = parse_boot_order(text.substr(0, 16));
  if (p.order) {
    (void)boot_order_words(*p.order, opt.board);
    (void)dump_json(explain_json(*p.order, opt.board));
    auto e = set_boot_order(text, format_boot_order(p.order->value));
    auto eff = effective_boot_order(parse_config(e.text), opt.board);
    if (!eff.order || eff.order->value != p.order->value) std::abort();  // the edit must take effect
  }
  return 0;
}
