#include "image/source.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/cancel.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace piprov::image {
namespace {

bool starts_with(std::span<const std::byte> h, std::initializer_list<unsigned> magic, std::size_t at = 0) {
  if (h.size() < at + magic.size()) return false;
  std::size_t i = at;
  for (unsigned m : magic)
    if (std::to_integer<unsigned>(h[i++]) != m) return false;
  return true;
}

std::string extension(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot + 1);
  return to_lower(e);
}

std::string hex_head(std::span<const std::byte> h) {
  std::string s;
  for (std::size_t i = 0; i < std::min<std::size_t>(h.size(), 8); ++i)
    s += fmt::format("{}{:02x}", i ? " " : "", std::to_integer<unsigned>(h[i]));
  return s;
}

class RawSource final : public Source {
 public:
  explicit RawSource(std::unique_ptr<InputFile> in) : Source(Format::Raw, std::move(in)) {
    ::posix_fadvise(input_->fd(), 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  std::size_t read_full(std::span<std::byte> out) override {
    std::size_t got = 0;
    while (got < out.size()) {
      std::size_t n = input_->read(out.subspan(got));
      if (n == 0) break;
      got += n;
    }
    return got;
  }
  std::optional<std::uint64_t> size() const override { return input_->size(); }
};

}  // namespace

namespace {
constexpr EnumName<Format> kFormatNames[] = {
    {Format::Raw, "raw"},   {Format::Xz, "xz"},   {Format::Gzip, "gzip"}, {Format::Bzip2, "bzip2"},
    {Format::Zstd, "zstd"}, {Format::Lz4, "lz4"}, {Format::Zip, "zip"},
};
}  // namespace

std::string to_string(Format f) { return std::string(enum_name(kFormatNames, f)); }

Format detect_format(std::span<const std::byte> h, const std::string& path) {
  if (starts_with(h, {0xfd, '7', 'z', 'X', 'Z', 0x00})) return Format::Xz;
  if (starts_with(h, {0x1f, 0x8b})) return Format::Gzip;
  if (starts_with(h, {'B', 'Z', 'h'})) return Format::Bzip2;
  if (starts_with(h, {0x28, 0xb5, 0x2f, 0xfd})) return Format::Zstd;
  if (starts_with(h, {0x04, 0x22, 0x4d, 0x18})) return Format::Lz4;
  if (starts_with(h, {'P', 'K', 0x03, 0x04})) return Format::Zip;
  auto unsupported = [&](const char* what) {
    return Error(ErrorKind::Usage, fmt::format("{} is a {} file, which piprov cannot write: unpack it and give the "
                                               ".img (or an .img.xz/.gz/.zst/.bz2/.lz4/.zip)",
                                               path, what));
  };
  if (starts_with(h, {'7', 'z', 0xbc, 0xaf, 0x27, 0x1c})) throw unsupported("7-Zip");
  if (starts_with(h, {'R', 'a', 'r', '!', 0x1a, 0x07})) throw unsupported("RAR");
  if (starts_with(h, {'L', 'Z', 'I', 'P'})) throw unsupported("lzip");
  if (starts_with(h, {0x02, 0x21, 0x4c, 0x18})) throw unsupported("legacy lz4");
  if (starts_with(h, {'Q', 'F', 'I', 0xfb})) throw unsupported("qcow2");
  if (starts_with(h, {'u', 's', 't', 'a', 'r'}, 257)) throw unsupported("tar");
  if (starts_with(h, {'P', 'K', 0x05, 0x06}))
    throw Error(ErrorKind::Usage, path + " is an empty zip archive: it holds no image");
  // A compressed-looking name with raw content is a broken or mislabelled download.
  static const char* compressed[] = {"xz", "gz", "bz2", "zst", "lz4", "zip", "7z", "lzma", "tgz"};
  std::string ext = extension(path);
  for (const char* c : compressed)
    if (ext == c)
      throw Error(ErrorKind::Usage, fmt::format("{} is named .{} but its content is not {} data (starts with {}): "
                                                "the download is probably broken; fetch it again",
                                                path, ext, ext, hex_head(h)));
  return Format::Raw;
}

InputFile::InputFile(const std::string& path, bool sha256) : path_(path) {
  fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd_) {
    int e = errno;
    if (e == ENOENT) throw Error(ErrorKind::Usage, path + " does not exist: give the path of the image file");
    throw io_error("cannot open image " + path, e);
  }
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) throw io_error("cannot stat image " + path, errno);
  if (!S_ISREG(st.st_mode))
    throw Error(ErrorKind::Usage, path + " is not a regular file: give the path of the image file");
  size_ = static_cast<std::uint64_t>(st.st_size);
  hash_wanted_ = sha256;
  if (sha256) sha_ = std::make_unique<Sha256>();
}

std::uint64_t InputFile::seek(std::uint64_t pos) {
  if (pos == consumed_) return pos;
  if (::lseek(fd_.get(), static_cast<off_t>(pos), SEEK_SET) < 0) throw io_error("seeking in " + path_, errno);
  sequential_ = false;
  sha_.reset();
  consumed_ = pos;
  return pos;
}

InputFile::~InputFile() = default;

std::size_t InputFile::read(std::span<std::byte> out) {
  FdResult r =
      read_fd_some(fd_.get(), out, std::nullopt, [this] { throw_if_cancelled(("while reading " + path_).c_str()); });
  if (r.err)
    throw Error(ErrorKind::Io, fmt::format("reading {} at byte offset {} failed: {} ({})", path_, consumed(),
                                           std::strerror(r.err), errno_name(r.err)));
  if (sha_) sha_->update(out.first(r.bytes));
  consumed_ += r.bytes;
  return r.bytes;
}

std::string InputFile::finish_sha256() {
  if (!hash_wanted_) return "";
  if (!sequential_) return sha256_file(path_);
  std::vector<std::byte> buf(1 << 20);
  while (read(buf) > 0) {
  }
  return sha_->hex();
}

std::unique_ptr<Source> open_source(const std::string& path, unsigned threads, bool sha256) {
  auto in = std::make_unique<InputFile>(path, sha256);
  if (in->size() == 0) throw Error(ErrorKind::Usage, path + " is empty (0 bytes): the download is probably broken");
  std::array<std::byte, 512> head{};
  FdResult n = read_fd_full(in->fd(), head, 0);
  if (n.err) throw io_error("reading " + path, n.err);
  Format f = detect_format(std::span<const std::byte>(head.data(), n.bytes), path);
  switch (f) {
    case Format::Raw: return std::make_unique<RawSource>(std::move(in));
    case Format::Xz: return make_xz_source(std::move(in), threads);
    default: return make_archive_source(std::move(in), f);
  }
}

}  // namespace piprov::image
