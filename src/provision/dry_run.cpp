#include "provision/dry_run.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/finding.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "provision/first_boot.hpp"
#include "provision/image_check.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

std::string dry_run_indent(const std::string& text, const std::string& pad) {
  std::string out;
  for (const auto& line : split(text, '\n')) out += pad + line + "\n";
  while (out.size() >= pad.size() + 1 && out.compare(out.size() - pad.size() - 1, pad.size() + 1, pad + "\n") == 0)
    out.erase(out.size() - pad.size() - 1);  // no padded empty last line
  return out;
}

}  // namespace

namespace {

/// The dry run's plan from the image's files in `tree` (provision_dry_run()).
void dry_run_plan(const ProvisionOptions& o, const ImageTree& tree, const std::vector<SeedPlan>& seeds,
                  DryRunReport& r) {
  r.format = tree.format();
  r.patch = patch_image_tree(o.patch, tree);
  for (std::size_t i = 0; i < o.write.targets.size(); ++i) {
    DryRunTarget t;
    t.target = o.write.targets[i];
    t.disk_id = tree.scheme() == image::TableScheme::Dos
                    ? "MBR disk identifier " + tree.disk_id() + " -> a new random one"
                    : "GPT disk GUID and partition GUIDs -> new random ones";
    t.disk_id += "; PARTUUID= references in the cmdline file and fstab follow it";
    std::vector<std::string> written;
    if (!seeds.empty()) {
      t.seed = seeds[i];
      // --wifi-country alone: only the cmdline, no seed, so any image (with cloud-init or not).
      const std::string why = !t.seed.writes_files() ? ""
                              : tree.root_dir()      ? cloud_init_missing(*tree.root_dir())
                                                     : tree.root_note();
      if (!why.empty())
        t.seed_refused = why +
                         "; no seed would be written (the real run, which cannot read this image's root fs before it "
                         "writes, writes the image, then refuses the seed: exit 2)";
      else if (t.seed.writes_files()) {
        t.replacement = seed_replacement(tree.boot_dir(), t.seed);
        // The image's own seed files are put back for the next disk (its seed is its own).
        for (const auto& name : t.replacement.replaced) {
          std::error_code ec;
          fs::copy_file(tree.boot_dir() / name, tree.boot_dir() / (name + ".piprov-image"),
                        fs::copy_options::overwrite_existing, ec);
        }
        written = write_seed(t.seed, tree.boot_dir());
      }
      // The real run's seed step sets the country in the cmdline files too: the same copy for every disk.
      if (t.seed_refused.empty() && !t.seed.wifi_country.empty())
        t.regdom_set = set_wifi_regdom(tree.boot_dir(), t.seed.wifi_country);
    }
    boot::CheckOptions co;
    co.boot_dir = tree.boot_dir();
    co.root_dir = tree.root_dir();
    co.usb_ids = o.usb_ids;
    co.scan_usb = false;
    co.board = o.patch.board;  // --board: what that Pi's firmware loads, as the real run's check step judges
    tree.set_disk(co);  // autoboot.txt's boot_partition and root=: the image's partitions, as written to the disk
    co.image = o.write.image;  // fixes name the disk written from it, never a command on the image's path
    t.check = boot::check_boot(co);
    for (auto& f : t.check.findings) {
      f.message = tree.named(f.message);
      f.fix = tree.named(f.fix);
    }
    for (auto& e : t.check.layout.evidence) e = tree.named(e);
    for (const auto& name : written) fs::remove(tree.boot_dir() / name);  // the next disk's seed is its own
    for (const auto& name : t.replacement.replaced)
      fs::rename(tree.boot_dir() / (name + ".piprov-image"), tree.boot_dir() / name);
    r.targets.push_back(std::move(t));
  }
}

}  // namespace

boot::PatchReport patch_image_tree(const boot::PatchOptions& patch, const ImageTree& tree) {
  boot::PatchOptions po = patch;
  po.boot_dir = tree.boot_dir();
  if (tree.root_dir()) po.root_dir = *tree.root_dir();
  po.dry_run = false;  // applied to the temporary copy: boot check then sees the patched partition
  boot::PatchReport rep;
  try {
    rep = boot::patch_boot(po);
  } catch (const Error& e) {
    throw Error(e.kind(), tree.named(e.what()), e.findings());
  }
  for (auto& a : rep.actions) a = tree.named(a);
  for (auto& n : rep.notes) n = tree.named(n);
  rep.summary = tree.named(rep.summary);
  rep.config_diff = tree.named(rep.config_diff);
  rep.cmdline_diff = tree.named(rep.cmdline_diff);
  return rep;
}

DryRunReport provision_dry_run(const ProvisionOptions& o) {
  DryRunReport r;
  r.image = o.write.image;
  PreparedProvision prepared = prepare_provision(o);
  r.seed_check = std::move(prepared.seed_check);
  // The tree prepare_provision() read (a random-access image), else one read now from the image's start.
  if (!prepared.tree) prepared.tree = std::make_unique<ImageTree>(prepared.write.reader(), o.write.image);
  const ImageTree& tree = *prepared.tree;
  try {
    dry_run_plan(o, tree, prepared.seeds, r);
  } catch (const Error& e) {  // an error about the image's files names them in IMAGE, not the temporary copy
    std::vector<Finding> findings = e.findings();
    for (auto& f : findings) {
      f.message = tree.named(f.message);
      f.fix = tree.named(f.fix);
    }
    throw Error(e.kind(), tree.named(e.what()), std::move(findings));
  }
  r.stats = tree.stats();
  r.image_bytes = tree.image_bytes();
  return r;
}

int dry_run_exit_code(const DryRunReport& r) {
  for (const auto& t : r.targets)
    if (!t.seed_refused.empty()) return static_cast<int>(ErrorKind::Usage);
  Findings all;
  for (const auto& t : r.targets) all.insert(all.end(), t.check.findings.begin(), t.check.findings.end());
  return findings_exit_code(all, boot::kCheckFailOn);
}

std::string dry_run_text(const DryRunReport& r) {
  std::string out = fmt::format("provision --dry-run: nothing was written; read from {} ({}: {})\n", r.image, r.format,
                                image::reader_stats_text(r.stats, r.image_bytes));
  // The seed check's warnings, as the real run prints them (its errors refuse before this).
  if (!r.seed_check.findings.empty())
    out +=
        "seed check (" + r.seed_check.validator + "):\n" + dry_run_indent(findings_text(r.seed_check.findings), "  ");
  for (const auto& t : r.targets) {
    out += t.target + ":\n";
    out += "  write: " + r.image + " -> " + t.target + "\n";
    out += "  identity: " + t.disk_id + "\n";
    out += "  patch: " + r.patch.summary + "\n";
    for (const auto& a : r.patch.actions) out += "    " + a + "\n";
    if (!r.patch.config_diff.empty()) out += dry_run_indent(r.patch.config_diff, "    ");
    if (!r.patch.cmdline_diff.empty()) out += dry_run_indent(r.patch.cmdline_diff, "    ");
    if (!t.seed_refused.empty()) {
      out += "  seed: REFUSED: " + t.seed_refused + "\n";
    } else if (!t.seed.wifi_country.empty() && !t.seed.writes_files()) {
      out +=
          "  seed: none (--wifi-country alone changes only the cmdline; the image's own seed files stay as they are)\n";
      out += "  wifi country: " + regdom_text(t.seed.wifi_country, t.regdom_set) + "\n";
    } else if (!t.seed.instance_id.empty()) {
      if (!t.replacement.replaced.empty())
        out += "  seed: replaces the image's " + join(t.replacement.replaced, ", ") + " (on the boot partition)\n";
      if (!t.replacement.login_warning.empty()) out += "  seed: WARNING: " + t.replacement.login_warning + "\n";
      const std::pair<const char*, const std::string*> files[] = {{"user-data", &t.seed.user_data},
                                                                  {"network-config", &t.seed.network_config},
                                                                  {"meta-data", &t.seed.meta_data}};
      for (const auto& [name, text] : files) {
        if (text->empty()) continue;
        out += fmt::format("  seed: {} (on the boot partition):\n", name);
        out += dry_run_indent(*text, "    | ");
      }
      if (!t.seed.wifi_country.empty())
        out += "  wifi country: " + regdom_text(t.seed.wifi_country, t.regdom_set) + "\n";
      else if (!t.seed.wifi_ssid.empty())
        out += "  wifi country: " + wifi_without_country_note() + "\n";
      if (!t.seed.regdom_note.empty()) out += "  wifi country: " + t.seed.regdom_note + "\n";
    } else {
      out += "  seed: none (no identity options)\n";
    }
    out += "  check: " + t.check.headline() + "\n";
    out += dry_run_indent(findings_text(t.check.findings), "    ");
    out += "  boot check: " + t.check.summary() + "\n";
  }
  return out;
}

nlohmann::json dry_run_json(const ProvisionOptions& o, const DryRunReport& r) {
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& t : r.targets) {
    boot::CheckOptions co;
    co.boot_dir = t.target;  // named as on the disk
    nlohmann::json seed = nlohmann::json::object();
    if (t.seed_refused.empty() && !t.seed.instance_id.empty()) {
      if (!t.seed.user_data.empty()) seed["user-data"] = t.seed.user_data;
      if (!t.seed.network_config.empty()) seed["network-config"] = t.seed.network_config;
      if (!t.seed.meta_data.empty()) seed["meta-data"] = t.seed.meta_data;
    }
    targets.push_back(
        {{"target", t.target},
         {"disk_id", t.disk_id},
         {"seed_files", seed},
         {"seed_refused", t.seed_refused.empty() ? nlohmann::json() : nlohmann::json(t.seed_refused)},
         {"wifi_country", t.seed.wifi_country.empty() ? nlohmann::json() : nlohmann::json(t.seed.wifi_country)},
         {"regdom_set", t.regdom_set},
         {"regdom_note", t.seed.regdom_note.empty() ? nlohmann::json() : nlohmann::json(t.seed.regdom_note)},
         {"replaced_seed_files", t.replacement.replaced},
         {"login_warning",
          t.replacement.login_warning.empty() ? nlohmann::json() : nlohmann::json(t.replacement.login_warning)},
         {"check", boot::check_json(co, t.check)}});
  }
  (void)o;
  return {{"schema", "piprov.provision.dry-run/1"},
          {"image", r.image},
          {"format", r.format},
          {"decoded",
           {{"blocks_total", r.stats.blocks_total},
            {"blocks_decoded", r.stats.blocks_decoded},
            {"bytes_decoded", r.stats.bytes_decoded}}},
          {"seed_check", seed_check_json(r.seed_check)},
          {"patch",
           {{"summary", r.patch.summary},
            {"actions", r.patch.actions},
            {"config_diff", r.patch.config_diff},
            {"cmdline_diff", r.patch.cmdline_diff}}},
          {"targets", targets},
          {"exit_code", dry_run_exit_code(r)}};
}

}  // namespace piprov::provision
