#include "provision/steps.hpp"

#include "core/enum_names.hpp"

namespace piprov::provision {

namespace {
constexpr EnumName<Step> kStepNames[] = {
    {Step::Write, "write"}, {Step::Identity, "identity"}, {Step::Partitions, "partitions"},
    {Step::Mount, "mount"}, {Step::Patch, "patch"},       {Step::Seed, "seed"},
    {Step::Check, "check"}, {Step::Sync, "sync"},         {Step::Unmount, "unmount"},
};
}  // namespace

std::string_view step_name(Step s) { return enum_name(kStepNames, s); }
std::optional<Step> parse_step(std::string_view name) { return parse_enum(kStepNames, name); }

unsigned step_number(Step s) {
  unsigned n = 1;
  for (Step t : kStepOrder) {
    if (t == s) return n;
    ++n;
  }
  return 0;
}

}  // namespace piprov::provision
