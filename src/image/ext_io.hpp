#pragma once
// The one read-only io_manager (e2fsprogs lib/ext2fs/ext2_io.h) piprov opens
// ext2/3/4 file systems with: its reads go to a callback (the blocks captured
// from a stream, ext_map.cpp; the random-access reader, image_fs.cpp), its
// writes fail with EXT2_ET_RO_FILSYS.
extern "C" {  // com_err.h has no C++ guard of its own
#include <et/com_err.h>
}
#include <ext2fs/ext2fs.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace piprov::image {

/// Fills `n` bytes at byte `offset` of the volume into `data`; returns 0 or
/// an ext2 error code (EXT2_ET_SHORT_READ when the bytes are not there).
using ExtRead = std::function<errcode_t(std::uint64_t offset, std::size_t n, void* data)>;

/// ext2fs_open2() of the volume `read` serves (`flags`: EXT2_FLAG_*; never
/// EXT2_FLAG_RW). `read` must outlive the file system (ext2fs_free/close).
/// Returns libext2fs's error code; *fs is set on success only.
errcode_t ext_open_with(const ExtRead* read, int flags, ext2_filsys* fs);

}  // namespace piprov::image
