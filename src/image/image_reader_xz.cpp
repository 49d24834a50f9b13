// The .xz back end of the image reader: the index (xz-file-format.txt
// section 6, every stream's, padding included) lists each block's compressed
// offset and its uncompressed size; a block is decoded alone from its block
// header (lzma_block_header_decode) with lzma_block_buffer_decode, which
// verifies the block's check (CRC32, CRC64 or SHA-256, section 3.4).
#include <fmt/format.h>
#include <lzma.h>
#include <array>

#include "core/error.hpp"
#include "image/image_reader_impl.hpp"

namespace piprov::image {
namespace {

std::string xz_block_what(lzma_ret r) {
  switch (r) {
    case LZMA_DATA_ERROR: return "its data or check (CRC32/CRC64/SHA-256) does not verify";
    case LZMA_OPTIONS_ERROR: return "its header names options this liblzma does not support";
    case LZMA_BUF_ERROR: return "it ends before its data does";
    case LZMA_MEM_ERROR: return "out of memory";
    default: return fmt::format("liblzma error {}", static_cast<int>(r));
  }
}

class XzImageReader final : public BlockImageReader {
 public:
  XzImageReader(std::unique_ptr<InputFile> in, std::vector<CompressedBlock> blocks, std::vector<lzma_check> checks,
                std::vector<std::uint64_t> unpadded)
      : BlockImageReader(std::move(in), Format::Xz, std::move(blocks)),
        checks_(std::move(checks)),
        unpadded_(std::move(unpadded)) {}

 protected:
  void decode(std::size_t index, std::span<std::byte> out) const override {
    std::vector<std::uint8_t> in = compressed(index);
    if (in.empty() || in[0] == 0) corrupt(index, "no block header where the index puts one");
    std::array<lzma_filter, LZMA_FILTERS_MAX + 1> filters{};
    lzma_block b{};
    b.version = 1;
    b.check = checks_[index];
    b.filters = filters.data();
    b.header_size = lzma_block_header_size_decode(in[0]);
    if (b.header_size > in.size()) corrupt(index, "its block header runs past the block");
    lzma_ret r = lzma_block_header_decode(&b, nullptr, in.data());
    if (r != LZMA_OK) corrupt(index, "its block header does not verify: " + xz_block_what(r));
    auto free_filters = [&filters] {
      for (auto& f : filters) {
        if (f.id == LZMA_VLI_UNKNOWN) break;
        free(f.options);  // NOLINT(cppcoreguidelines-no-malloc): allocated by liblzma with malloc
        f.options = nullptr;
      }
    };
    // The index's unpadded size gives the compressed size (section 4.2's
    // Compressed Size is optional in the header).
    const std::uint64_t unpadded = unpadded_[index];
    if (lzma_block_compressed_size(&b, unpadded) != LZMA_OK) {
      free_filters();
      corrupt(index, "its block header disagrees with the index");
    }
    if (b.uncompressed_size == LZMA_VLI_UNKNOWN) b.uncompressed_size = out.size();
    std::size_t in_pos = b.header_size, out_pos = 0;
    r = lzma_block_buffer_decode(&b, nullptr, in.data(), &in_pos, in.size(),
                                 reinterpret_cast<std::uint8_t*>(out.data()), &out_pos, out.size());
    free_filters();
    if (r != LZMA_OK) corrupt(index, xz_block_what(r));
    if (out_pos != out.size())
      corrupt(index, fmt::format("it decodes to {} bytes, the index says {}", out_pos, out.size()));
  }

 private:
  std::vector<lzma_check> checks_;       ///< per block: its stream's check type
  std::vector<std::uint64_t> unpadded_;  ///< per block: Unpadded Size (index)
};

}  // namespace

std::unique_ptr<ImageReader> make_xz_reader(std::unique_ptr<InputFile>& in) {
  lzma_index* idx = read_xz_index(*in);
  std::vector<CompressedBlock> blocks;
  std::vector<lzma_check> checks;
  std::vector<std::uint64_t> unpadded;
  lzma_index_iter it;
  lzma_index_iter_init(&it, idx);
  while (!lzma_index_iter_next(&it, LZMA_INDEX_ITER_NONEMPTY_BLOCK)) {
    blocks.push_back(
        {{it.block.uncompressed_file_offset, it.block.uncompressed_file_offset + it.block.uncompressed_size},
         it.block.compressed_file_offset,
         it.block.total_size});
    checks.push_back(it.stream.flags->check);
    unpadded.push_back(it.block.unpadded_size);
  }
  lzma_index_end(idx, nullptr);
  if (blocks.size() <= 1) return nullptr;
  return std::make_unique<XzImageReader>(std::move(in), std::move(blocks), std::move(checks), std::move(unpadded));
}

}  // namespace piprov::image
