#include "image/ext_io.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace piprov::image {
namespace {

/// The read of the file system ext2fs_open2() is opening on this thread (the
/// io_manager's open() has no other way to find it).
thread_local const ExtRead* t_ext_io_opening = nullptr;

io_manager ext_io_manager();

errcode_t ext_io_open(const char* name, int /*flags*/, io_channel* channel) {
  if (!t_ext_io_opening) return EXT2_ET_BAD_DEVICE_NAME;
  auto* io = static_cast<io_channel>(std::calloc(1, sizeof(struct_io_channel)));
  if (!io) return EXT2_ET_NO_MEMORY;
  io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
  io->manager = ext_io_manager();
  io->name = strdup(name);
  io->block_size = 1024;
  io->refcount = 1;
  io->private_data = const_cast<ExtRead*>(t_ext_io_opening);
  *channel = io;
  return 0;
}

errcode_t ext_io_close(io_channel io) {
  if (--io->refcount > 0) return 0;
  std::free(io->name);
  std::free(io);
  return 0;
}

errcode_t ext_io_set_blksize(io_channel io, int blksize) {
  io->block_size = blksize;
  return 0;
}

errcode_t ext_io_read64(io_channel io, unsigned long long block, int count, void* data) {
  const std::size_t n = count < 0 ? static_cast<std::size_t>(-count) : static_cast<std::size_t>(count) * io->block_size;
  return (*static_cast<const ExtRead*>(io->private_data))(block * io->block_size, n, data);
}

errcode_t ext_io_read(io_channel io, unsigned long block, int count, void* data) {
  return ext_io_read64(io, block, count, data);
}

errcode_t ext_io_write(io_channel, unsigned long, int, const void*) { return EXT2_ET_RO_FILSYS; }
errcode_t ext_io_write64(io_channel, unsigned long long, int, const void*) { return EXT2_ET_RO_FILSYS; }
errcode_t ext_io_flush(io_channel) { return 0; }

io_manager ext_io_manager() {
  static struct_io_manager m = [] {
    struct_io_manager x{};
    x.magic = EXT2_ET_MAGIC_IO_MANAGER;
    x.name = "piprov image reader";
    x.open = ext_io_open;
    x.close = ext_io_close;
    x.set_blksize = ext_io_set_blksize;
    x.read_blk = ext_io_read;
    x.write_blk = ext_io_write;
    x.flush = ext_io_flush;
    x.read_blk64 = ext_io_read64;
    x.write_blk64 = ext_io_write64;
    return x;
  }();
  return &m;
}

}  // namespace

errcode_t ext_open_with(const ExtRead* read, int flags, ext2_filsys* fs) {
  static std::once_flag once;
  std::call_once(once, [] { initialize_ext2_error_table(); });
  t_ext_io_opening = read;
  ext2_filsys out = nullptr;
  const errcode_t err = ext2fs_open2("piprov", nullptr, flags & ~EXT2_FLAG_RW, 0, 0, ext_io_manager(), &out);
  t_ext_io_opening = nullptr;
  if (err == 0) *fs = out;
  return err;
}

}  // namespace piprov::image
