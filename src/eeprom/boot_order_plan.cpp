#include "eeprom/boot_order_plan.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/write_guard.hpp"
#include "eeprom/check.hpp"
#include "eeprom/config.hpp"
#include "eeprom/input.hpp"

namespace piprov::eeprom {
namespace {

// bootloader-too-old-for-usb: a USB mode does nothing on a bootloader older
// than USB boot; said here, not only on the next `eeprom check --image OUT`.
void rule_bootloader_too_old(const EepromImage& img, const BootOrderPlan& p, Findings& f) {
  bool usb = std::find(p.order.modes.begin(), p.order.modes.end(), want_mode(Want::Usb)) != p.order.modes.end();
  if (!usb) return;
  for (auto& x : check_version(BootloaderInfo{img.build_timestamp(), img.version(), "image"}, std::nullopt, Want::Usb))
    if (x.rule == "bootloader-too-old-for-usb") f.push_back(std::move(x));
}

// bootconf-sig-stale: SIGNED_BOOT=1 and a bootconf.sig that signs the old config.
void rule_bootconf_sig_stale(const EepromImage& img, const BootOrderPlan& p, Findings& f) {
  if (!img.find_file("bootconf.sig")) return;
  for (const auto& l : parse_config(p.edit.text).lines)
    if (l.kind == LineKind::Setting && l.key == "SIGNED_BOOT" && l.value == "1")
      f.push_back({"bootconf-sig-stale", Severity::Warning, l.number, "SIGNED_BOOT",
                   "SIGNED_BOOT=1: bootconf.sig in the image still signs the old config",
                   "re-sign: rpi-eeprom-digest -i bootconf.txt -o bootconf.sig, then rpi-eeprom-config --digest",
                   "rpi-eeprom-config (signed boot)"});
}
}  // namespace

BootOrderPlan plan_boot_order(const EepromImage& img, const BootOrder& order, std::optional<Board> board) {
  BootOrderPlan p;
  p.board = board_for_image(img, board);
  p.order = order;
  p.value = format_boot_order(order.value);
  p.edit = set_boot_order(img.bootconf(), p.value);
  p.new_image = img.with_file("bootconf.txt", p.edit.text);
  if (EepromImage::parse(p.new_image, img.name()).bootconf() != p.edit.text)
    throw Error(ErrorKind::Verify, fmt::format("{}: the new bootconf.txt does not read back as written", img.name()));
  p.findings = check_boot_order(order, p.edit.line, p.board, std::nullopt);
  // The verdict `eeprom check --image OUT` will give on the whole new config:
  // its errors (e.g. USB never tried on a Pi 4B), each rule once.
  CheckOptions opt;
  opt.board = p.board;
  opt.want_from_board = true;
  for (auto& f : check_config({.config_text = p.edit.text}, opt).findings)
    if (f.severity == Severity::Error &&
        std::none_of(p.findings.begin(), p.findings.end(), [&](const Finding& g) { return g.rule == f.rule; }))
      p.config_errors.push_back(std::move(f));
  p.findings.insert(p.findings.end(), p.config_errors.begin(), p.config_errors.end());
  rule_bootloader_too_old(img, p, p.findings);
  rule_bootconf_sig_stale(img, p, p.findings);
  return p;
}

BootOrderPlan write_boot_order(const std::filesystem::path& image, const std::filesystem::path& out,
                               const BootOrder& order, std::optional<Board> board) {
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && std::filesystem::equivalent(image, out, ec))
    throw Error(ErrorKind::Usage, fmt::format("--out {} is the input image: give a new file name (keep the original "
                                              "to roll back with rpi-eeprom-update -d -f {})",
                                              out.string(), image.string()));
  auto plan = plan_boot_order(EepromImage::load(image), order, board);
  check_output_file(out.string(), "--out");
  AtomicFile file(out);
  file.write(plan.new_image);
  file.commit();
  return plan;
}

}  // namespace piprov::eeprom
