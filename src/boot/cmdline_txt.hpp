#pragma once
// cmdline.txt: the kernel command line the Pi firmware passes on. It must be a
// single line (the firmware reads only the first one); root= must be present.
// UAS quirks: broken UAS USB-SATA bridges on a Pi 4 need
// `usb-storage.quirks=VID:PID:u` here (kernel admin-guide kernel-parameters:
// usb-storage.quirks, flag u = IGNORE_UAS; known bridges below).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "boot/usb.hpp"
#include "core/finding.hpp"

namespace piprov::boot {

/// A USB-SATA bridge known to need the `u` (ignore UAS) quirk on a Pi 4.
struct KnownBridge {
  const char* vid_pid;  ///< "152d:0578"
  const char* name;
};
/// Raspberry Pi forums topic 245931 (Pi 4 USB 3.0 SSD speeds, UAS quirks): JMicron JMS567/578, ASMedia ASM1051/1053
/// (174c:55aa), ASMedia 174c:1156, 0634:5605.
const std::vector<KnownBridge>& known_uas_bridges();
/// The bridge for "vvvv:pppp" (case-insensitive), or nullptr.
const KnownBridge* find_known_bridge(std::string_view vid_pid);
/// Validates and lower-cases "VID:PID" (4+4 hex digits). Throws Error{Usage}.
std::string normalize_vid_pid(std::string_view text);

/// The parsed first line: parameters split on spaces. Lossless: keeps the
/// file's bytes and edits only the parameter it changes.
class CmdlineTxt {
 public:
  static CmdlineTxt parse(std::string_view bytes);
  std::string to_string() const { return text_; }

  /// The first line without its line end ("\n" or "\r\n"): the kernel command
  /// line as the firmware passes it on ("" for an empty file). Raspberry Pi
  /// documentation, "Kernel command line (cmdline.txt)": "Put all parameters in
  /// cmdline.txt on the same line. Do not use newlines." The firmware adds
  /// parameters of its own before the kernel sees it ("the output of [cat
  /// /proc/cmdline] will not exactly match the contents of cmdline.txt").
  std::string command_line() const;
  /// Parameters of the first line, in order ("root=LABEL=writable", "rootwait").
  std::vector<std::string> params() const;
  /// Value of the last "name=value" (the one the kernel uses: each occurrence replaces the one before,
  /// Linux init/do_mounts.c root_dev_setup, and initramfs-tools' init loops over /proc/cmdline the
  /// same way); nullopt when absent.
  std::optional<std::string> get(std::string_view name) const;
  /// Parameters given more than once with different values, as (name, values in order): console=
  /// (each adds a console) and usb-storage.quirks= (usb-quirks-repeated) excepted.
  std::vector<std::pair<std::string, std::vector<std::string>>> duplicates() const;
  /// Problems (core/finding.hpp): errors "multiple-lines" (more than one
  /// non-empty line), "no-root", "empty"; warning "duplicate" (line 1, key NAME) for each of
  /// duplicates(), naming every value and the last, which the kernel uses; then one finding per bad
  /// usb-storage.quirks entry (line 1, key usb-storage.quirks; boot/usb.hpp):
  /// "usb-quirk-invalid" (error: not VID:PID:FLAGS with 4-hex-digit IDs, the
  /// kernel ignores it), "usb-quirk-unknown-flag" (warning: a letter
  /// kernel-parameters.txt does not list), "uas-quirk-no-u" (warning: a bridge
  /// of known_uas_bridges() listed without u, so it still binds to uas), and
  /// "usb-quirks-repeated" (warning: several usb-storage.quirks=, only the last counts).
  Findings lint() const;
  /// True when the effective (last) usb-storage.quirks= parameter's first entry
  /// for VID:PID has the `u` flag (the kernel uses the first matching entry).
  bool has_uas_quirk(std::string_view vid_pid) const;
  /// Makes the effective usb-storage.quirks= ignore UAS for VID:PID: adds `u` to
  /// that device's entry, else appends VID:PID:u to the list, else a new
  /// parameter at the end of the first line. Returns true when changed.
  bool add_uas_quirk(std::string_view vid_pid);
  /// Sets `name=value` on the first line: replaces the value of the last `name=` parameter (the
  /// one the kernel uses), else appends the parameter to the line. Only that parameter's bytes
  /// change. Returns true when the text changed.
  bool set(std::string_view name, std::string_view value);

 private:
  void lint_usb_quirks(Findings& out) const;
  std::string text_;
};

}  // namespace piprov::boot
