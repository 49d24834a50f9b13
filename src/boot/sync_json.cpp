// What `boot sync-kernel` reports: the outcome's name, its JSON and its exit
// code (the policy the apt hook shares: a failure is a warning unless --strict).
#include <nlohmann/json.hpp>

#include "boot/sync.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"

namespace piprov::boot {

namespace {
constexpr EnumName<SyncResult::Outcome> kSyncOutcomeNames[] = {
    {SyncResult::Outcome::UpToDate, "up-to-date"}, {SyncResult::Outcome::Regenerated, "regenerated"},
    {SyncResult::Outcome::Failed, "failed"},       {SyncResult::Outcome::NotAPi, "not-a-pi"},
    {SyncResult::Outcome::NotUsed, "not-used"},
};
}  // namespace

std::string_view sync_outcome_name(SyncResult::Outcome o, bool dry_run) {
  if (dry_run && o == SyncResult::Outcome::Regenerated) return "would-regenerate";
  return enum_name(kSyncOutcomeNames, o);
}

bool sync_failed(const SyncResult& r) {
  return r.outcome == SyncResult::Outcome::Failed || r.outcome == SyncResult::Outcome::NotAPi;
}

int sync_exit_code(const SyncResult& r, bool strict) {
  if (!strict) return 0;
  if (r.outcome == SyncResult::Outcome::Failed) return static_cast<int>(ErrorKind::Verify);
  if (r.outcome == SyncResult::Outcome::NotAPi) return static_cast<int>(ErrorKind::Usage);
  return 0;
}

nlohmann::json sync_json(const std::filesystem::path& boot_dir, const SyncOptions& opts, const SyncResult& r) {
  return {{"schema", "piprov.boot.sync-kernel/1"},
          {"boot_dir", boot_dir.string()},
          {"outcome", sync_outcome_name(r.outcome, opts.dry_run)},
          {"message", r.message},
          {"actions", r.actions}};
}

}  // namespace piprov::boot
