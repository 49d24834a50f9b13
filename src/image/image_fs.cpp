#include "image/image_fs.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "core/error.hpp"
#include "image/ext_io.hpp"

namespace piprov::image {

PartitionTable read_partition_table(ImageReader& reader, std::optional<std::uint64_t> bound) {
  std::vector<std::byte> head(kPartitionTableBytes);
  head.resize(reader.read_head(head));
  return parse_partition_table(head, bound.value_or(0));
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

namespace {

struct ExtExtract {
  ext2_filsys fs;
  std::uint64_t max_bytes, copied = 0;
  std::function<void()> rethrow;

  std::string read_inode_data(ext2_ino_t ino, std::uint64_t size, const std::string& what) {
    ext2_file_t file = nullptr;
    errcode_t err = ext2fs_file_open(fs, ino, 0, &file);
    rethrow();
    if (err != 0)
      throw Error(ErrorKind::Usage, fmt::format("{} in the image cannot be read: {}", what, error_message(err)));
    std::string out(size, '\0');
    std::size_t have = 0;
    while (have < size && err == 0) {
      unsigned int got = 0;
      err = ext2fs_file_read(file, out.data() + have,
                             static_cast<unsigned>(std::min<std::uint64_t>(size - have, 1u << 20)), &got);
      if (got == 0) break;
      have += got;
    }
    ext2fs_file_close(file);
    rethrow();
    if (err != 0 || have != size)
      throw Error(ErrorKind::Usage,
                  fmt::format("{} in the image cannot be read: {}", what, err ? error_message(err) : "it ends early"));
    return out;
  }

  void copy(ext2_ino_t ino, const std::string& what, const std::filesystem::path& dest, int depth) {
    ext2_inode inode{};
    errcode_t err = ext2fs_read_inode(fs, ino, &inode);
    rethrow();
    if (err != 0)
      throw Error(ErrorKind::Usage, fmt::format("{} in the image cannot be read: {}", what, error_message(err)));
    const std::uint64_t size = EXT2_I_SIZE(&inode);
    std::error_code ec;
    if (LINUX_S_ISLNK(inode.i_mode)) {
      std::string target = ext2fs_is_fast_symlink(&inode)
                               ? std::string(reinterpret_cast<const char*>(inode.i_block), size)
                               : read_inode_data(ino, size, what);
      std::filesystem::create_symlink(target, dest, ec);
    } else if (LINUX_S_ISREG(inode.i_mode)) {
      if ((copied += size) > max_bytes)
        throw Error(ErrorKind::Usage,
                    fmt::format("{} and the files before it are more than the {} bytes piprov reads from the image",
                                what, max_bytes));
      write_file(dest, read_inode_data(ino, size, what));
    } else if (LINUX_S_ISDIR(inode.i_mode) && depth < 32) {
      std::filesystem::create_directory(dest, ec);
      std::vector<std::pair<std::string, ext2_ino_t>> entries;
      auto each = [](ext2_ino_t, int, ext2_dir_entry* d, int, int, char*, void* priv) -> int {
        const std::string name(d->name, ext2fs_dirent_name_len(d));
        if (name != "." && name != "..")
          static_cast<std::vector<std::pair<std::string, ext2_ino_t>>*>(priv)->emplace_back(name, d->inode);
        return 0;
      };
      err = ext2fs_dir_iterate2(fs, ino, 0, nullptr, each, &entries);
      rethrow();
      if (err != 0)
        throw Error(ErrorKind::Usage, fmt::format("{} in the image cannot be listed: {}", what, error_message(err)));
      for (const auto& [name, child] : entries)
        if (name.find('/') == std::string::npos) copy(child, what + "/" + name, dest / name, depth + 1);
    }
    if (ec) throw io_error("cannot make " + dest.string(), ec.value());
  }

  static void write_file(const std::filesystem::path& p, const std::string& data) {
    std::FILE* f = std::fopen(p.c_str(), "wbx");
    if (!f) throw io_error("cannot create " + p.string(), errno);
    const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
    if ((std::fclose(f) != 0) || !ok) throw io_error("cannot write " + p.string(), errno);
  }
};

}  // namespace

std::uint64_t ExtFiles::extract(const std::string& path, const std::filesystem::path& dest, std::uint64_t max_bytes) {
  ext2_ino_t ino = 0;
  const errcode_t err = ext2fs_namei(impl_->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path.c_str(), &ino);
  impl_->rethrow();
  if (err != 0 || ino == 0) return 0;
  ExtExtract x{impl_->fs, max_bytes, 0, [this] { impl_->rethrow(); }};
  x.copy(ino, path, dest, 0);
  return x.copied;
}

bool is_ext_superblock(std::span<const std::byte> sb) {
  constexpr std::size_t kMagicAt = 0x38;  // s_magic, __le16
  return sb.size() >= kMagicAt + 2 && sb[kMagicAt] == std::byte{0x53} && sb[kMagicAt + 1] == std::byte{0xef};
}

bool has_ext_superblock(ImageReader& reader, std::uint64_t offset, std::uint64_t size) {
  std::byte sb[0x3a];
  if (size < kExtSuperblockOffset + SUPERBLOCK_SIZE) return false;
  reader.read_at(sb, offset + kExtSuperblockOffset);
  return is_ext_superblock(sb);
}

PartitionTable read_image_partitions(ImageReader& reader) {
  return with_logical_partitions(read_partition_table(reader, reader.size()),
                                 [&reader](std::span<std::byte> out, std::uint64_t at) { reader.read_at(out, at); });
}

std::unique_ptr<ExtFiles> open_root_fs(ImageReader& reader, std::string* why) {
  return open_root_fs(reader, read_image_partitions(reader), why);
}

std::unique_ptr<ExtFiles> open_root_fs(ImageReader& reader, const PartitionTable& t, std::string* why,
                                       std::optional<unsigned> named, unsigned* opened) {
  if (t.parts.empty()) {
    *why = t.note.empty() ? "the image has no partition table" : t.note;
    return nullptr;
  }
  if (named) {
    const auto p = std::find_if(t.parts.begin(), t.parts.end(), [&](const auto& e) { return e.number == *named; });
    if (p != t.parts.end()) {
      if (!p->extended && has_ext_superblock(reader, p->offset, p->size)) {
        if (opened) *opened = p->number;
        return std::make_unique<ExtFiles>(reader, p->offset, p->size);
      }
      *why = "partition " + std::to_string(*named) + ", which root= names, does not hold ext2/3/4";
      return nullptr;
    }
  }
  for (const auto& p : t.parts) {
    if (p.kind != PartKind::Linux || !has_ext_superblock(reader, p.offset, p.size)) continue;
    if (opened) *opened = p.number;
    return std::make_unique<ExtFiles>(reader, p.offset, p.size);
  }
  *why = "the image has no ext2/3/4 partition" + (t.logical_note.empty() ? "" : " (" + t.logical_note + ")");
  return nullptr;
}

}  // namespace piprov::image
