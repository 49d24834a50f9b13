// What provision's report says: the --json document, the patch step's line,
// each disk's "ready" sentence and the exit code (provision.hpp). The cli
// prints these; it decides nothing.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "boot/sync.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "provision/autoboot_target.hpp"
#include "provision/provision.hpp"

namespace piprov::provision {
namespace {

nlohmann::json provision_identity_json(const TargetReport& t) {
  const auto& id = t.disk_identity;
  return {
      {"disk_label", std::string(image::scheme_name(id.label))},
      {"old_disk_id", id.old_id},
      {"new_disk_id", id.new_id},
      {"partuuids", id.partuuids},
      {"rewritten", t.seed.rewritten},
      {"hostname", t.seed_plan.hostname},
      {"instance_id", t.seed_plan.instance_id},
      {"seed_files", t.seed.seed_files},
      {"replaced_seed_files", t.seed.replaced},
      {"login_warning", t.seed.login_warning.empty() ? nlohmann::json() : nlohmann::json(t.seed.login_warning)},
      {"regdom_note", t.seed_plan.regdom_note.empty() ? nlohmann::json() : nlohmann::json(t.seed_plan.regdom_note)}};
}

nlohmann::json provision_target_json(const TargetReport& t) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : t.steps)
    steps.push_back({{"step", std::string(step_name(s.step))}, {"result", s.result}, {"seconds", s.seconds}});
  return {{"target", t.target},
          {"ok", t.ok},
          {"error", t.ok ? nlohmann::json(nullptr) : nlohmann::json(t.error)},
          {"write", image::target_outcome_json(t.write)},
          {"identity", provision_identity_json(t)},
          {"boot_partition", t.boot_partition},
          {"root_partition", t.root_partition},
          {"boot_partition_reason", t.boot_partition_reason},
          {"autoboot", autoboot_json(t.autoboot)},
          {"layout", boot::layout_name(t.patch.layout.id)},
          {"release", t.patch.layout.release},
          {"patched", t.patch.changed()},
          {"patch_actions", t.patch.actions},
          {"config_diff", t.patch.config_diff},
          {"check_ok", t.ok && t.check.ok()},
          {"findings", findings_json(t.check.findings)},
          {"summary", findings_summary_json(t.check.findings, boot::kCheckFailOn)},
          {"seconds", t.seconds},
          {"steps", steps}};
}

}  // namespace

std::string patch_summary(const boot::PatchReport& p) {
  const auto& l = p.layout;
  std::string line =
      "layout " + std::string(boot::layout_name(l.id)) + (l.release.empty() ? "" : " (" + l.release + ")");
  if (!p.summary.empty()) line += ": " + p.summary;
  if (p.changed()) line += ": " + join(p.actions, "; ");
  return line;
}

std::string check_step_text(const boot::CheckReport& c, bool hook_installed) {
  if (!c.ok()) {
    auto counts = count_findings(c.findings);
    return std::to_string(counts.errors + counts.warnings) + " finding(s), listed below";
  }
  std::vector<std::string> parts;
  if (!c.kernel_file.empty())
    parts.push_back("kernel " + c.kernel_file +
                    (c.kernel_file == boot::kVmlinux ? std::string(" (") + to_string(c.kernel.state) + ")" : ""));
  if (!c.resolved.initramfs.empty()) parts.push_back("initramfs " + c.resolved.initramfs);
  if (!c.cmdline_file.empty()) parts.push_back("cmdline " + c.cmdline_file);
  if (hook_installed) parts.emplace_back("apt hook installed");
  return parts.empty() ? "OK" : "OK: " + join(parts, ", ");
}

std::string on_partition(std::string text, const std::string& dir, const std::string& role, const std::string& device) {
  if (dir.empty()) return text;
  const std::string where = " on the " + role + " partition (" + device + ")";
  for (std::size_t at = text.find(dir); at != std::string::npos; at = text.find(dir, at)) {
    std::size_t end = text.find_first_of(" \t\n:", at);  // ':' never in a FAT name: "in DIR: ..." ends there
    if (end == std::string::npos) end = text.size();
    std::string rel = text.substr(at + dir.size(), end - at - dir.size());
    if (!rel.empty() && rel.front() != '/') {  // another path that only begins like dir
      at = end;
      continue;
    }
    if (role != "root" && !rel.empty()) rel.erase(0, 1);
    std::string named = rel.empty() ? "the " + role + " partition (" + device + ")" : rel + where;
    text.replace(at, end - at, named);
    at += named.size();
  }
  return text;
}

void name_check_on_partitions(boot::CheckReport& check, const std::string& boot_dir, const std::string& boot_device,
                              const std::string& root_dir, const std::string& root_device) {
  auto name = [&](std::string text) {
    return on_partition(on_partition(std::move(text), boot_dir, "boot", boot_device), root_dir, "root", root_device);
  };
  for (auto& f : check.findings) {
    f.message = name(f.message);
    f.fix = name(f.fix);
  }
  for (auto& e : check.layout.evidence) e = name(e);
}

std::size_t ProvisionReport::succeeded() const {
  return static_cast<std::size_t>(std::count_if(targets.begin(), targets.end(), [](auto& t) { return t.ok; }));
}

std::string ready_sentence(const TargetReport& t) {
  const std::string who = "provision: " + t.target;
  if (!t.check.ok()) return who + " was written and patched, but boot check found problems (above)";
  if (!t.patch.changed() && boot::boots_from_usb_as_shipped(t.patch.layout.id))
    return who + " is ready: " + (t.patch.layout.release.empty() ? "the image" : t.patch.layout.release) + " (layout " +
           std::string(boot::layout_name(t.patch.layout.id)) + ") boots from USB as shipped; nothing needed patching";
  if (t.patch.method && t.patch.method->method == boot::PatchMethod::Direct)
    return who +
           " is ready: a Pi 4 boots it from USB ([pi4] kernel=vmlinuz: its firmware loads the gzip kernel, no hook "
           "needed)";
  return who +
         " is ready: a Pi 4 boots it from USB ([pi4] kernel=vmlinux), and the apt hook keeps vmlinux fresh after "
         "kernel updates";
}

std::string steps_summary(const ProvisionReport& rep) {
  std::vector<std::string> disks;
  std::size_t ran = 0;
  for (const auto& t : rep.targets) {
    if (t.steps.empty()) continue;  // its write failed: no step ran
    ++ran;
    disks.push_back(t.target + " " + (t.ok ? "" : "failed at '" + std::string(step_name(t.failed_step)) + "' after ") +
                    format_duration(t.seconds));
  }
  return "provision: steps after the write: " + std::to_string(ran) + " disk" + (ran == 1 ? "" : "s") +
         " in parallel in " + format_duration(rep.steps_seconds) + " (" + join(disks, ", ") + ")";
}

std::string interrupted_text(const ProvisionReport& rep) {
  if (!rep.interrupted) return "";
  std::vector<std::string> parts;
  for (const auto& t : rep.targets)
    parts.push_back(t.target + (t.ok ? " finished every step (it is ready as said above)"
                                : t.steps.empty()
                                    ? " did not finish (its write failed)"
                                    : " did not finish (failed at '" + std::string(step_name(t.failed_step)) + "')"));
  return "provision: interrupted (SIGINT or SIGTERM): " + join(parts, "; ");
}

int exit_code(const ProvisionReport& rep) {
  if (rep.interrupted) return static_cast<int>(ErrorKind::Interrupted);
  for (const auto& t : rep.targets)
    if (!t.ok && t.error_kind == ErrorKind::Interrupted) return static_cast<int>(ErrorKind::Interrupted);
  if (rep.succeeded() < rep.targets.size()) return static_cast<int>(ErrorKind::Partial);
  Findings all;
  for (const auto& t : rep.targets) all.insert(all.end(), t.check.findings.begin(), t.check.findings.end());
  return findings_exit_code(all, boot::kCheckFailOn);
}

nlohmann::json provision_json(const ProvisionReport& r) {
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& t : r.targets) targets.push_back(provision_target_json(t));
  return {{"schema", "piprov.provision/3"},
          {"write", image::write_result_json(r.write)},
          {"succeeded", r.succeeded()},
          {"failed", r.targets.size() - r.succeeded()},
          {"steps_seconds", r.steps_seconds},
          {"targets", targets},
          {"seed_check", seed_check_json(r.seed_check)},
          {"interrupted", r.interrupted}};
}

nlohmann::json seed_check_json(const SeedCheck& c) {
  return {
      {"validator", c.validator}, {"partial", c.partial}, {"rules", c.rules}, {"findings", findings_json(c.findings)}};
}

}  // namespace piprov::provision
