#include "provision/autoboot_target.hpp"

#include <fmt/format.h>
#include <cstdlib>

#include "boot/fat_tools.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"
#include "core/write_guard.hpp"
#include "provision/first_boot.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

const Partition* abt_find(const Disk& d, int number) {
  for (const auto& p : d.partitions)
    if (p.number == number) return &p;
  return nullptr;
}

/// A partition's files in a private /tmp/piprov-abt-XXXXXX (boot::FatDir): mounted read-only
/// unless `writable`, or an mtools copy of `names` (all when empty).
boot::FatDirOptions abt_view(bool writable, std::vector<std::string> names) {
  boot::FatDirOptions o;
  o.writable = writable;
  o.names = std::move(names);
  o.temp_name = "abt";
  return o;
}

/// MBR PARTUUIDs are "<disk id>-<nn>" (Linux block/partitions/msdos.c); GPT ones are GUIDs.
bool abt_is_mbr(const Partition& p) { return p.partuuid.size() == 11 && p.partuuid[8] == '-'; }

/// The [tryboot] partition of `a` on `d` when provision uses it; else sets `note` (why not, or "").
std::optional<Partition> abt_tryboot(const Disk& d, const boot::Autoboot& a, int boot_number, std::string& note) {
  if (!a.tryboot_partition || *a.tryboot_partition <= 0 || *a.tryboot_partition == boot_number) return std::nullopt;
  const int m = *a.tryboot_partition;
  const Partition* t = abt_find(d, m);
  if (t && t->fstype == "vfat") return *t;
  note = fmt::format(
      "[tryboot] partition {} {}: left alone (a trial boot fails and the next reset boots partition {})", m,
      t ? "is " + (t->fstype.empty() ? std::string("not formatted") : t->fstype) + ", not FAT" : "is not on " + d.path,
      boot_number);
  return std::nullopt;
}

}  // namespace

std::string AutobootBoot::reason() const {
  return "autoboot.txt boot_partition=" + std::to_string(file.partition.value_or(0));
}

AutobootBoot plan_autoboot(const Disk& disk, const Partition& first_fat, const boot::Autoboot& a) {
  const std::string head = "autoboot.txt on " + first_fat.path;
  const std::string tail =
      "; no boot file was changed and no seed was written: fix boot_partition= in the "
      "image's autoboot.txt (Raspberry Pi documentation, config_txt: autoboot.txt)";
  if (!a.partition || *a.partition == 0) {
    std::string what =
        !a.bad_values.empty() ? "sets boot_partition=" + a.bad_values.front().second + ", not a partition number"
        : a.partition
            ? "sets boot_partition=0 (the first bootable FAT partition), and " + first_fat.path + " holds no config.txt"
            : "has no boot_partition under [all]";
    throw Error(ErrorKind::Usage, head + " " + what + ": provision cannot tell which partition boots" + tail);
  }
  const int n = *a.partition;
  const Partition* p = abt_find(disk, n);
  if (!p)
    throw Error(ErrorKind::Usage,
                fmt::format("{} names boot_partition={}, but {} has no partition {} (partitions: {}){}", head, n,
                            disk.path, n, disk.partition_list(), tail));
  if (p->fstype != "vfat")
    throw Error(ErrorKind::Usage,
                fmt::format("{} names boot_partition={}, but {} is {}, not FAT: the bootloader boots only FAT{}", head,
                            n, p->path, p->fstype.empty() ? "not a known filesystem" : p->fstype, tail));
  if (n > 4 && abt_is_mbr(*p))
    throw Error(ErrorKind::Usage,
                fmt::format("{} names boot_partition={} on an MBR disk, whose partitions the bootloader numbers 1 to "
                            "4{}",
                            head, n, tail));
  AutobootBoot r;
  r.autoboot_partition = first_fat.path;
  r.file = a;
  r.boot = *p;
  r.tryboot = abt_tryboot(disk, a, n, r.tryboot_note);
  return r;
}

std::optional<AutobootBoot> follow_autoboot(const Disk& disk, const Partition& first_fat) {
  std::optional<boot::Autoboot> a;
  {
    const boot::FatDir view(first_fat.path, abt_view(false, {boot::kAutobootTxt, "config.txt"}));
    if (!boot::autoboot_only(view.dir())) return std::nullopt;
    a = boot::read_autoboot(view.dir());
  }
  if (!a) return std::nullopt;
  return plan_autoboot(disk, first_fat, *a);
}

std::vector<std::string> rewrite_partition_partuuids(const Partition& p, const image::DiskIdentity& id) {
  boot::FatDir view(p.path, abt_view(true, {}));
  std::vector<std::string> out;
  for (const auto& name : cmdline_files(view.dir())) {
    auto text = read_file_if_exists(view.dir() / name);
    if (!text) continue;
    int n = 0;
    std::string changed = image::replace_partuuids(*text, id.partuuids, &n);
    if (n == 0) continue;
    atomic_write(view.dir() / name, changed);
    out.push_back(name);
  }
  if (!out.empty()) view.write_back();
  return out;
}

std::string boot_partition_reason(const Partition& boot, const std::optional<AutobootBoot>& ab) {
  if (ab) return ab->reason();
  if (to_lower(boot.label) == "system-boot") return "LABEL=system-boot";
  return "the first FAT partition";
}

std::string autoboot_partitions_text(const AutobootBoot& ab) {
  std::string s = " (" + ab.reason() + " on " + ab.autoboot_partition;
  if (ab.tryboot) s += fmt::format("; [tryboot] partition {}: {}", ab.tryboot->number, ab.tryboot->path);
  return s + ")";
}

std::string autoboot_seed_text(const AutobootBoot& ab) {
  if (!ab.tryboot) return ab.tryboot_note.empty() ? "" : "; " + ab.tryboot_note;
  return fmt::format("; [tryboot] partition {} ({}): {}, no seed (it boots only after reboot \"0 tryboot\")",
                     ab.tryboot->number, ab.tryboot->path,
                     ab.tryboot_rewritten.empty() ? "no PARTUUID= to rewrite"
                                                  : "PARTUUID= rewritten in " + join(ab.tryboot_rewritten, ", "));
}

nlohmann::json autoboot_json(const std::optional<AutobootBoot>& ab) {
  if (!ab) return nullptr;
  auto num = [](const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"autoboot_partition", ab->autoboot_partition},
          {"boot_partition", num(ab->file.partition)},
          {"tryboot_partition", num(ab->file.tryboot_partition)},
          {"tryboot_a_b", ab->file.tryboot_a_b},
          {"tryboot_device", ab->tryboot ? ab->tryboot->path : std::string()},
          {"tryboot_rewritten", ab->tryboot_rewritten},
          {"tryboot_note", ab->tryboot_note}};
}

}  // namespace piprov::provision
