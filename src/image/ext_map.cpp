#include "image/ext_map.hpp"

#include "image/ext_io.hpp"
#include "image/image_fs.hpp"

#include <fmt/format.h>
#include <cstring>
#include <map>
#include <set>

namespace piprov::image {
namespace {

/// Most descriptor bytes libext2fs may ask for before the file system is open.
constexpr std::size_t kMaxExtOpenBytes = 16u << 20;

class ExtScan final : public FsScan {
 public:
  ExtScan(Capture& cap, std::uint64_t offset, std::uint64_t size) : cap_(cap), offset_(offset), size_(size) {
    cap_.request(offset_ + SUPERBLOCK_OFFSET, SUPERBLOCK_SIZE,
                 [this](std::vector<std::byte>&& d) { superblock(std::move(d)); });
  }
  ~ExtScan() override {
    if (fs_) ext2fs_free(fs_);
  }
  ExtScan(const ExtScan&) = delete;
  ExtScan& operator=(const ExtScan&) = delete;

  void update() override;
  const std::vector<ByteRange>& free_ranges() const override { return free_; }
  const std::string& failure() const override { return failure_; }
  std::string type() const override { return type_; }
  std::string label() const override { return label_; }

  /// The io_manager's read (ext_io.hpp): `n` bytes at byte `off` of the volume.
  errcode_t serve(std::uint64_t off, std::size_t n, void* data);

 private:
  void superblock(std::vector<std::byte>&& d);
  void try_open();
  bool usable();
  void plan_bitmaps();
  void reread();
  void fail(std::string why) {
    if (failure_.empty() && free_.empty()) failure_ = std::move(why);
    done_ = true;
  }

  Capture& cap_;
  std::uint64_t offset_, size_;
  const ExtRead read_ = [this](std::uint64_t off, std::size_t n, void* data) { return serve(off, n, data); };
  std::map<std::uint64_t, std::vector<std::byte>> blocks_;  ///< volume byte offset -> bytes captured
  std::map<std::uint64_t, dgrp_t> bitmaps_;                 ///< bitmap block offset -> its group
  std::vector<std::pair<std::uint64_t, std::size_t>> missing_;
  std::vector<dgrp_t> arrived_;  ///< groups whose bitmap came since the last reread
  std::size_t asked_ = 0;        ///< bytes requested while opening
  ext2_filsys fs_ = nullptr;
  bool dirty_ = false, done_ = false;
  std::vector<ByteRange> free_;
  std::string failure_, type_ = "ext", label_;
};

errcode_t ExtScan::serve(std::uint64_t off, std::size_t n, void* data) {
  auto it = blocks_.upper_bound(off);
  if (it != blocks_.begin()) {
    --it;
    if (it->first <= off && off + n <= it->first + it->second.size()) {
      std::memcpy(data, it->second.data() + (off - it->first), n);
      return 0;
    }
  }
  if (fs_ && bitmaps_.count(off) && n <= fs_->blocksize) {  // not streamed by yet: every block in use
    std::memset(data, 0xff, n);
    return 0;
  }
  missing_.emplace_back(off, n);
  return EXT2_ET_SHORT_READ;
}

void ExtScan::superblock(std::vector<std::byte>&& d) {
  if (!is_ext_superblock(d)) return fail("no ext2/3/4 superblock (magic 0xEF53)");
  blocks_[SUPERBLOCK_OFFSET] = std::move(d);
  try_open();
}

void ExtScan::try_open() {
  missing_.clear();
  errcode_t err = ext_open_with(&read_, EXT2_FLAG_64BITS, &fs_);
  if (err == 0) {
    if (usable()) plan_bitmaps();
    return;
  }
  fs_ = nullptr;
  if (missing_.empty()) return fail(fmt::format("superblock damaged: {}", error_message(err)));
  for (auto [off, n] : missing_) {
    asked_ += n;
    if (asked_ > kMaxExtOpenBytes) return fail("superblock damaged: it asks for too many descriptor blocks");
    if (!cap_.request(offset_ + off, n, [this, off = off](std::vector<std::byte>&& b) {
          blocks_[off] = std::move(b);
          try_open();
        }))
      return fail(fmt::format("its group descriptors (byte {}) come before its superblock", off));
  }
}

bool ExtScan::usable() {
  ext2_super_block* s = fs_->super;
  type_ = ext2fs_has_feature_extents(s) || ext2fs_has_feature_flex_bg(s) || ext2fs_has_feature_64bit(s) ||
                  ext2fs_has_feature_metadata_csum(s) || ext2fs_has_feature_huge_file(s)
              ? "ext4"
          : ext2fs_has_feature_journal(s) ? "ext3"
                                          : "ext2";
  label_ = std::string(reinterpret_cast<const char*>(s->s_volume_name),
                       strnlen(reinterpret_cast<const char*>(s->s_volume_name), sizeof s->s_volume_name));
  const std::uint64_t bytes = ext2fs_blocks_count(s) * fs_->blocksize;
  if (ext2fs_has_feature_journal_needs_recovery(s))
    fail(kExtNeedsRecovery);
  else if (s->s_state & EXT2_ERROR_FS)
    fail(kExtHasErrors);
  else if (ext2fs_has_feature_bigalloc(s))
    fail("it uses bigalloc (not read by piprov)");
  else if (bytes > size_)
    fail(fmt::format("it ({} bytes) is larger than its partition ({} bytes)", bytes, size_));
  else if (std::uint64_t{fs_->group_desc_count} * fs_->blocksize > kMaxExtBitmapBytes)
    fail(fmt::format("its {} block bitmaps are more than piprov keeps", fs_->group_desc_count));
  return !done_;
}

void ExtScan::plan_bitmaps() {
  const bool csum = ext2fs_has_group_desc_csum(fs_);
  for (dgrp_t g = 0; g < fs_->group_desc_count; ++g) {
    if (csum && ext2fs_bg_flags_test(fs_, g, EXT2_BG_BLOCK_UNINIT) && ext2fs_group_desc_csum_verify(fs_, g))
      continue;  // libext2fs computes it: only the group's own metadata is in use
    const blk64_t blk = ext2fs_block_bitmap_loc(fs_, g);
    if (blk == 0 || blk >= ext2fs_blocks_count(fs_->super))
      return fail(fmt::format("group {}'s block bitmap lies outside it", g));
    const std::uint64_t off = blk * fs_->blocksize;
    bitmaps_[off] = g;
    // A bitmap that streamed by before its descriptors stays "all in use".
    cap_.request(offset_ + off, fs_->blocksize, [this, off, g](std::vector<std::byte>&& b) {
      blocks_[off] = std::move(b);
      arrived_.push_back(g);
      dirty_ = true;
    });
  }
  dirty_ = true;
}

void ExtScan::update() {
  if (fs_ && dirty_ && !done_) reread();
  dirty_ = false;
}

void ExtScan::reread() {
  const std::size_t nbytes = EXT2_CLUSTERS_PER_GROUP(fs_->super) / 8;
  for (dgrp_t g : arrived_) {  // a bitmap whose checksum fails: its group is written
    auto& b = blocks_[ext2fs_block_bitmap_loc(fs_, g) * fs_->blocksize];
    if (!ext2fs_block_bitmap_csum_verify(fs_, g, reinterpret_cast<char*>(b.data()), static_cast<int>(nbytes)))
      std::memset(b.data(), 0xff, b.size());
  }
  arrived_.clear();
  if (fs_->block_map) ext2fs_free_block_bitmap(fs_->block_map);
  fs_->block_map = nullptr;
  fs_->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;  // checked above, per group
  if (errcode_t err = ext2fs_read_block_bitmap(fs_))
    return fail(fmt::format("its block bitmaps could not be read: {}", error_message(err)));
  const blk64_t last = ext2fs_blocks_count(fs_->super) - 1;
  std::vector<ByteRange> out;
  for (blk64_t at = fs_->super->s_first_data_block; at <= last;) {
    blk64_t zero = 0, used = 0;
    if (ext2fs_find_first_zero_block_bitmap2(fs_->block_map, at, last, &zero) != 0) break;
    const blk64_t end = ext2fs_find_first_set_block_bitmap2(fs_->block_map, zero, last, &used) == 0 ? used : last + 1;
    out.push_back({offset_ + zero * fs_->blocksize, offset_ + end * fs_->blocksize});
    at = end;
  }
  free_ = std::move(out);
}

}  // namespace

std::unique_ptr<FsScan> make_ext_scan(Capture& cap, std::uint64_t offset, std::uint64_t size) {
  return std::make_unique<ExtScan>(cap, offset, size);
}

}  // namespace piprov::image
