#include "image/image_fs.hpp"

#include <fmt/format.h>
#include <cstring>

#include "core/error.hpp"
#include "image/ext_io.hpp"

namespace piprov::image {

PartitionTable read_partition_table(ImageReader& reader) {
  std::vector<std::byte> head(std::min<std::uint64_t>(kPartitionTableBytes, reader.size()));
  reader.read_at(head, 0);
  return parse_partition_table(head, reader.size());
}

struct ExtFiles::Impl {
  ImageReader& reader;
  std::uint64_t offset = 0, size = 0;
  ExtRead read;
  ext2_filsys fs = nullptr;
  /// The first Error read_at() threw inside libext2fs (rethrown after the call returns).
  std::exception_ptr failure;

  Impl(ImageReader& r, std::uint64_t off, std::uint64_t sz) : reader(r), offset(off), size(sz) {
    read = [this](std::uint64_t at, std::size_t n, void* data) -> errcode_t {
      if (at + n > size) return EXT2_ET_SHORT_READ;
      try {
        reader.read_at(std::span<std::byte>(static_cast<std::byte*>(data), n), offset + at);
        return 0;
      } catch (...) {  // libext2fs is C: no exception may cross it
        if (!failure) failure = std::current_exception();
        return EXT2_ET_SHORT_READ;
      }
    };
  }
  /// Rethrows a reader error libext2fs reported as a short read.
  void rethrow() {
    if (auto f = failure) {
      failure = nullptr;
      std::rethrow_exception(f);
    }
  }
  ext2_ino_t lookup(const std::string& path) {
    ext2_ino_t ino = 0;
    errcode_t err = ext2fs_namei_follow(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path.c_str(), &ino);
    rethrow();
    return err == 0 ? ino : 0;
  }
};

ExtFiles::ExtFiles(ImageReader& reader, std::uint64_t offset, std::uint64_t size)
    : impl_(std::make_unique<Impl>(reader, offset, size)) {
  const errcode_t err = ext_open_with(&impl_->read, EXT2_FLAG_64BITS, &impl_->fs);
  impl_->rethrow();
  if (err != 0)
    throw Error(ErrorKind::Usage,
                fmt::format("the partition at byte {} of the image is not a readable ext2/3/4 file system ({})", offset,
                            error_message(err)));
}

ExtFiles::~ExtFiles() {
  if (impl_->fs) ext2fs_free(impl_->fs);
}

std::string ExtFiles::label() const {
  const auto* s = impl_->fs->super;
  return std::string(reinterpret_cast<const char*>(s->s_volume_name),
                     strnlen(reinterpret_cast<const char*>(s->s_volume_name), sizeof s->s_volume_name));
}

bool ExtFiles::is_directory(const std::string& path) {
  const ext2_ino_t ino = impl_->lookup(path);
  if (ino == 0) return false;
  ext2_inode inode{};
  const errcode_t err = ext2fs_read_inode(impl_->fs, ino, &inode);
  impl_->rethrow();
  return err == 0 && LINUX_S_ISDIR(inode.i_mode);
}

std::optional<std::string> ExtFiles::read_file(const std::string& path, std::size_t max_bytes) {
  const ext2_ino_t ino = impl_->lookup(path);
  if (ino == 0) return std::nullopt;
  ext2_inode inode{};
  errcode_t err = ext2fs_read_inode(impl_->fs, ino, &inode);
  impl_->rethrow();
  if (err != 0 || !LINUX_S_ISREG(inode.i_mode)) return std::nullopt;
  ext2_file_t file = nullptr;
  err = ext2fs_file_open(impl_->fs, ino, 0, &file);
  impl_->rethrow();
  if (err != 0)
    throw Error(ErrorKind::Usage, fmt::format("{} in the image cannot be read: {}", path, error_message(err)));
  __u64 size = 0;
  ext2fs_file_get_lsize(file, &size);
  std::string out;
  if (size > max_bytes) {
    ext2fs_file_close(file);
    throw Error(ErrorKind::Usage,
                fmt::format("{} in the image is {} bytes, more than the {} piprov reads", path, size, max_bytes));
  }
  out.resize(size);
  std::size_t have = 0;
  while (have < size && err == 0) {
    unsigned int got = 0;
    err = ext2fs_file_read(file, out.data() + have, static_cast<unsigned>(size - have), &got);
    if (got == 0) break;
    have += got;
  }
  ext2fs_file_close(file);
  impl_->rethrow();
  if (err != 0 || have != size)
    throw Error(ErrorKind::Usage,
                fmt::format("{} in the image cannot be read: {}", path, err ? error_message(err) : "it ends early"));
  return out;
}

std::unique_ptr<ExtFiles> open_root_fs(ImageReader& reader, std::string* why) {
  const PartitionTable t = read_partition_table(reader);
  if (t.parts.empty()) {
    *why = t.note.empty() ? "the image has no partition table" : t.note;
    return nullptr;
  }
  for (const auto& p : t.parts) {
    if (p.kind != PartKind::Linux || p.size < SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE) continue;
    std::byte magic[2];
    reader.read_at(magic, p.offset + SUPERBLOCK_OFFSET + 56);
    if (magic[0] != std::byte{0x53} || magic[1] != std::byte{0xef}) continue;
    return std::make_unique<ExtFiles>(reader, p.offset, p.size);
  }
  *why = "the image has no ext2/3/4 partition";
  return nullptr;
}

}  // namespace piprov::image
