#include "eeprom/report.hpp"

#include <fmt/format.h>

namespace piprov::eeprom {
namespace {
nlohmann::json opt_str(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

nlohmann::json bootloader_json(const BootloaderInfo& b) {
  nlohmann::json j{{"source", b.source}, {"version", opt_str(b.version)}};
  if (b.build_timestamp) {
    j["build_timestamp"] = *b.build_timestamp;
    j["build_date"] = format_date(*b.build_timestamp);
  } else {
    j["build_timestamp"] = nullptr;
    j["build_date"] = nullptr;
  }
  return j;
}

nlohmann::json modes_json(const BootOrder& o, std::optional<Board> board) {
  nlohmann::json a = nlohmann::json::array();
  std::size_t reach = reachable_count(o);
  for (std::size_t i = 0; i < o.modes.size(); ++i) {
    int n = o.modes[i];
    nlohmann::json m{
        {"nibble", fmt::format("{:x}", n)}, {"name", mode_name(n)}, {"known", mode_known(n)}, {"reachable", i < reach}};
    if (board) m["on_board"] = mode_known(n) && board_has_mode(*board, n);
    a.push_back(m);
  }
  return a;
}
}  // namespace

nlohmann::json explain_json(const BootOrder& o, std::optional<Board> board) {
  nlohmann::json j{{"schema", "piprov.eeprom.explain/1"},
                   {"boot_order", format_boot_order(o.value)},
                   {"value", o.value},
                   {"modes", modes_json(o, board)},
                   {"words", boot_order_words(o, board)}};
  j["board"] = board ? nlohmann::json(std::string(board_name(*board))) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json check_json(const CheckReport& r, const CheckOptions& opt, const CheckContext& ctx) {
  nlohmann::json j;
  j["schema"] = "piprov.eeprom.check/1";
  nlohmann::json src{{"kind", source_kind_name(ctx.source_kind)}, {"path", opt_str(ctx.path)}};
  j["source"] = src;
  j["board"] = std::string(board_name(opt.board));
  j["board_from"] = ctx.board_from;
  j["want"] = r.want ? nlohmann::json(std::string(want_name(*r.want))) : nlohmann::json(nullptr);
  j["want_from"] = opt.want_from_board ? "board" : "option";
  if (ctx.image_size)
    j["image"] = {
        {"size_bytes", *ctx.image_size},
        {"chip", ctx.image_chip ? fmt::format("BCM{}", *ctx.image_chip) : ""},
        {"bootconf_offset", ctx.bootconf_offset ? nlohmann::json(*ctx.bootconf_offset) : nlohmann::json(nullptr)}};
  else
    j["image"] = nullptr;
  j["bootloader"] = ctx.bootloader ? bootloader_json(*ctx.bootloader) : nlohmann::json(nullptr);
  if (ctx.source_kind == SourceKind::Live)
    j["release_channel"] = {
        {"value", ctx.release_channel ? nlohmann::json(*ctx.release_channel) : nlohmann::json(nullptr)},
        {"file", ctx.release_channel_file}};
  else
    j["release_channel"] = nullptr;
  j["config"] = {{"bytes", r.config.text.size()}, {"lines", r.config.lines.size()}, {"text", r.config.text}};

  const auto& e = r.boot_order;
  nlohmann::json bo{{"value", e.text},
                    {"valid", e.order.has_value()},
                    {"line", e.line == 0 ? nlohmann::json(nullptr) : nlohmann::json(e.line)},
                    {"is_default", e.is_default()},
                    {"applies", e.always_gpio.empty()},
                    {"always_gpio", e.always_gpio.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.always_gpio)}};
  bo["modes"] = e.order ? modes_json(*e.order, opt.board) : nlohmann::json::array();
  bo["words"] = e.order ? nlohmann::json(boot_order_words(*e.order, opt.board)) : nlohmann::json(nullptr);
  nlohmann::json cond = nlohmann::json::array();
  for (const auto& c : e.conditional)
    cond.push_back(
        {{"section", c.section},
         {"line", c.line},
         {"value", c.text},
         {"words", c.order ? nlohmann::json(boot_order_words(*c.order, opt.board)) : nlohmann::json(nullptr)}});
  bo["conditional"] = cond;
  nlohmann::json over = nlohmann::json::array();
  for (const auto& c : e.overridden)
    over.push_back({{"section", c.section}, {"line", c.line}, {"value", c.text}, {"overridden_by", c.overridden_by}});
  bo["overridden"] = over;
  j["boot_order"] = bo;

  j["findings"] = findings_json(r.findings);
  j["summary"] = findings_summary_json(r.findings, check_fail_on(ctx.strict));
  j["summary"]["strict"] = ctx.strict;
  return j;
}

std::string check_text(const CheckReport& r, const CheckOptions& opt, const CheckContext& ctx) {
  std::string out;
  std::string what = ctx.source_kind == SourceKind::Live    ? "live bootloader (vcgencmd bootloader_config)"
                     : ctx.source_kind == SourceKind::Stdin ? "config from stdin"
                     : ctx.source_kind == SourceKind::Image ? "bootconf.txt in " + ctx.path
                                                            : ctx.path;
  out += fmt::format("checked:    {}", what);
  if (ctx.image_size)
    out += fmt::format(" ({} bytes, BCM{}, bootconf.txt at offset {})", *ctx.image_size, ctx.image_chip.value_or(0),
                       ctx.bootconf_offset.value_or(0));
  out += "\n";
  if (ctx.bootloader) {
    const auto& b = *ctx.bootloader;
    out += fmt::format("bootloader: {}{}\n",
                       b.build_timestamp ? fmt::format("{} (BUILD_TIMESTAMP={})", format_datetime(*b.build_timestamp),
                                                       *b.build_timestamp)
                                         : std::string("build date unknown"),
                       b.version.empty() ? "" : ", version " + b.version);
  }
  if (ctx.source_kind == SourceKind::Live)
    out += fmt::format("channel:    FIRMWARE_RELEASE_STATUS={} ({})\n",
                       ctx.release_channel ? "\"" + *ctx.release_channel + "\"" : "not set", ctx.release_channel_file);
  out += fmt::format(
      "board:      {} ({}; from {})   want: {}\n", board_name(opt.board), board_title(opt.board), ctx.board_from,
      r.want ? fmt::format("{}{}", want_name(*r.want), opt.want_from_board ? " (from the board)" : "") : "-");
  const auto& e = r.boot_order;
  // With a [gpioN=0]/[gpioN=1] pair one of the conditional values always applies: they lead, and
  // the value above them is named as never applying.
  const bool never = !e.always_gpio.empty();
  if (!never)
    out += fmt::format("BOOT_ORDER: {} ({}): {}\n", e.text,
                       e.is_default() ? "not set: board default" : fmt::format("line {}", e.line),
                       e.order ? boot_order_words(*e.order, opt.board) : "invalid value");
  for (std::size_t i = 0; i < e.conditional.size(); ++i) {
    const auto& c = e.conditional[i];
    out += fmt::format("{}{} when {} (line {}): {}\n", never && i == 0 ? "BOOT_ORDER: " : "            ", c.text,
                       c.section, c.line, c.order ? boot_order_words(*c.order, opt.board) : "invalid value");
  }
  if (never)
    out += fmt::format("            ({} {} never applies: [gpio{}=0] and [gpio{}=1] both set BOOT_ORDER)\n", e.text,
                       e.is_default() ? "(the board default)" : fmt::format("at line {}", e.line), e.always_gpio,
                       e.always_gpio);
  out += "\n";
  out += findings_text(r.findings);
  out += fmt::format("{}{}\n", r.findings.empty() ? "" : "\n",
                     findings_summary_text(r.findings, check_fail_on(ctx.strict)));
  return out;
}

}  // namespace piprov::eeprom

namespace piprov::eeprom {

nlohmann::json boot_order_plan_json(const BootOrderPlan& p, const std::string& image, const std::string& out) {
  return {{"schema", "piprov.eeprom.set-boot-order/1"},
          {"image", image},
          {"out", out},
          {"board", std::string(board_name(p.board))},
          {"old_boot_order", p.edit.old_value.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.edit.old_value)},
          {"boot_order", p.value},
          {"line", p.edit.line},
          {"words", boot_order_words(p.order, p.board)},
          {"config", p.edit.text},
          {"config_bytes", p.edit.text.size()},
          {"image_bytes", p.new_image.size()},
          {"findings", findings_json(p.findings)}};
}

}  // namespace piprov::eeprom
