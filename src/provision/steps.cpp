#include "provision/steps.hpp"

namespace piprov::provision {

std::string_view step_name(Step s) {
  switch (s) {
    case Step::Write: return "write";
    case Step::Identity: return "identity";
    case Step::Partitions: return "partitions";
    case Step::Mount: return "mount";
    case Step::Patch: return "patch";
    case Step::Seed: return "seed";
    case Step::Check: return "check";
    case Step::Sync: return "sync";
    case Step::Unmount: return "unmount";
  }
  return "?";
}

std::optional<Step> parse_step(std::string_view name) {
  for (Step s : kStepOrder)
    if (step_name(s) == name) return s;
  return std::nullopt;
}

unsigned step_number(Step s) {
  unsigned n = 1;
  for (Step t : kStepOrder) {
    if (t == s) return n;
    ++n;
  }
  return 0;
}

}  // namespace piprov::provision
