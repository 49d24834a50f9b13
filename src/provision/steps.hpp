#pragma once
// provision's steps per disk, said once: their order, names and count come
// from the Step enum below; a StepScope (provision.cpp) times one step and
// reports it.
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>

namespace piprov::provision {

/// One step of provision for one disk, in the order they run.
enum class Step {
  Write,       ///< the image written (and verified) by the one decode for all disks
  Identity,    ///< a new disk identifier and PARTUUIDs (first_boot.hpp)
  Partitions,  ///< system-boot and writable found with libblkid
  Mount,       ///< both mounted in a private temp dir (or the boot partition copied out with mtools)
  Patch,       ///< boot patch --root
  Seed,        ///< PARTUUID= rewrite and the cloud-init seed
  Check,       ///< boot check
  Sync,        ///< syncfs (or the mtools write-back)
  Unmount,     ///< unmounted, temp dir removed
};
inline constexpr Step kStepOrder[] = {Step::Write, Step::Identity, Step::Partitions, Step::Mount,  Step::Patch,
                                      Step::Seed,  Step::Check,    Step::Sync,       Step::Unmount};

/// Number of steps provision reports per disk ("[n/9]").
inline constexpr unsigned kSteps = std::size(kStepOrder);

/// The step's stable name, as the step lines and --json's "step" show it
/// ("write", "identity", "partitions", "mount", "patch", "seed", "check",
/// "sync", "unmount").
std::string_view step_name(Step s);

/// step_name()'s inverse; std::nullopt for any other text.
std::optional<Step> parse_step(std::string_view name);

/// 1-based place of `s` in kStepOrder ("[3/9]": 3).
unsigned step_number(Step s);

}  // namespace piprov::provision
