#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>

#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"

namespace piprov {

AtomicFile::AtomicFile(std::filesystem::path target, unsigned mode) : target_(std::move(target)) {
  auto dir = target_.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmpl = (dir / ("." + target_.filename().string() + ".tmp.XXXXXX")).string();
  fd_.reset(::mkostemp(tmpl.data(), O_CLOEXEC));
  if (!fd_) throw io_error("cannot create a temporary file in " + dir.string(), errno);
  temp_ = tmpl;
  ::fchmod(fd_.get(), mode);
}

AtomicFile::~AtomicFile() {
  fd_.reset();
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicFile::write(std::span<const std::byte> data) {
  if (FdResult r = write_fd_full(fd_.get(), data); r.err) throw io_error("cannot write " + temp_.string(), r.err);
}

void AtomicFile::write(std::string_view text) {
  write(std::span<const std::byte>(reinterpret_cast<const std::byte*>(text.data()), text.size()));
}

void AtomicFile::commit() {
  if (::fsync(fd_.get()) != 0) throw io_error("cannot fsync " + temp_.string(), errno);
  if (int err = fd_.close()) throw io_error("cannot close " + temp_.string(), err);
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    throw io_error("cannot rename " + temp_.string() + " to " + target_.string(), errno);
  committed_ = true;
  auto dir = target_.parent_path();
  fsync_directory(dir.empty() ? std::filesystem::path(".") : dir);
}

void atomic_write(const std::filesystem::path& target, std::string_view content, unsigned mode) {
  AtomicFile f(target, mode);
  f.write(content);
  f.commit();
}

void fsync_directory(const std::filesystem::path& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw io_error("cannot open directory " + dir.string(), errno);
  int rc = ::fsync(fd.get());
  int err = errno;
  // Some filesystems (vfat on old kernels) return EINVAL for directory fsync: not an error.
  if (rc != 0 && err != EINVAL) throw io_error("cannot fsync directory " + dir.string(), err);
}

}  // namespace piprov
