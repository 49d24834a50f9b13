#pragma once
// The targets of one `piprov write` run, checked together before the first
// byte of any is written: the write guard for each (core/write_guard.hpp),
// the image not stored on one of them, no disk given twice, each big enough;
// then the one confirmation that lists every disk. Internal to src/image.
#include <string>
#include <vector>

#include <optional>

#include "image/partition_table.hpp"
#include "image/source.hpp"
#include "image/target.hpp"
#include "image/write.hpp"

namespace piprov::image {

/// inspect_target() + check_image_not_on_target() for every target of `o`,
/// and duplicates (the same disk by two names, the same file twice).
/// Throws Error{Usage} whose message has one line per refused target
/// (each naming it), ending with "nothing was written".
std::vector<TargetInfo> check_targets(const WriteOptions& o);

/// An IMAGE whose MBR/GPT (`table`, as written: read_partition_table(reader,
/// nullopt)) names a partition that ends past the image's decoded end
/// (`size`, when known without decoding everything: raw, the xz index, zst
/// frame headers, a zip header): a cut download, or an image cut before it
/// was compressed (issue 29). Throws Error{Usage} naming the partition and
/// both offsets ("once decoded" unless `format` is raw); an unknown size or
/// no table passes. `outcome` ends the message ("nothing was written").
void check_complete_image(const PartitionTable& table, std::optional<std::uint64_t> size, Format format,
                          const std::string& image, const std::string& outcome = "nothing was written");

/// An image larger than a disk (when the size is known). Throws Error{Usage},
/// one line per target refused.
void check_sizes(const std::vector<TargetInfo>& targets, const ImageShape& shape, const std::string& image);

/// Asks o.confirm once with every target described, unless o.assume_yes or
/// nothing existing is overwritten (only new files). Throws Error{Usage}
/// when there is no way to ask or the answer is no.
void confirm_targets(const WriteOptions& o, const std::vector<TargetInfo>& targets, const ImageShape& shape);

}  // namespace piprov::image
