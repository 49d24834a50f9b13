#include "core/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iostream>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov {
namespace {

constexpr std::size_t kSystemFileMax = 1u << 20;

// Reads `fd` to its end, at most `max` bytes (+1 to see that there is more).
// Returns errno on failure, else 0; `*over` is set when more than `max` bytes.
int read_fd(int fd, std::size_t max, std::string& out, bool* over) {
  char buf[65536];
  for (;;) {
    FdResult r = read_fd_some(fd, std::as_writable_bytes(std::span(buf)));
    if (r.err) return r.err;
    if (r.bytes == 0) return 0;
    out.append(buf, r.bytes);
    if (out.size() > max) {
      if (over) *over = true;
      out.resize(max);
      return 0;
    }
  }
}

// Opens and reads `path`; returns errno (0 on success).
int read_path(const fs::path& path, std::size_t max, std::string& out, bool* over) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return errno;
  return read_fd(fd.get(), max, out, over);
}

[[noreturn]] void throw_read_error(const fs::path& path, int err) {
  if (err == EISDIR) throw Error(ErrorKind::Usage, path.string() + " is a directory; give a file");
  throw io_error("cannot read " + path.string(), err);
}

}  // namespace

FdResult read_fd_some(int fd, std::span<std::byte> out, std::optional<std::uint64_t> offset,
                      const OnInterrupt& on_interrupt) {
  ssize_t n = retry_eintr(
      [&] {
        return offset ? ::pread(fd, out.data(), out.size(), static_cast<off_t>(*offset))
                      : ::read(fd, out.data(), out.size());
      },
      on_interrupt);
  if (n < 0) return {0, errno};
  return {static_cast<std::size_t>(n), 0};
}

FdResult read_fd_full(int fd, std::span<std::byte> out, std::optional<std::uint64_t> offset,
                      const OnInterrupt& on_interrupt) {
  FdResult total;
  while (total.bytes < out.size()) {
    std::optional<std::uint64_t> at;
    if (offset) at = *offset + total.bytes;
    FdResult r = read_fd_some(fd, out.subspan(total.bytes), at, on_interrupt);
    total.bytes += r.bytes;
    if (r.err || r.bytes == 0) return {total.bytes, r.err};
  }
  return total;
}

FdResult write_fd_full(int fd, std::span<const std::byte> data, std::optional<std::uint64_t> offset,
                       const OnInterrupt& on_interrupt) {
  FdResult total;
  while (total.bytes < data.size()) {
    std::span<const std::byte> left = data.subspan(total.bytes);
    ssize_t n = retry_eintr(
        [&] {
          return offset ? ::pwrite(fd, left.data(), left.size(), static_cast<off_t>(*offset + total.bytes))
                        : ::write(fd, left.data(), left.size());
        },
        on_interrupt);
    if (n < 0) return {total.bytes, errno};
    if (n == 0) return {total.bytes, ENOSPC};
    total.bytes += static_cast<std::size_t>(n);
  }
  return total;
}

std::string read_fd_to_end(int fd, const std::string& what) {
  std::string out;
  if (int err = read_fd(fd, std::string::npos - 1, out, nullptr)) throw io_error("cannot read " + what, err);
  return out;
}

std::string read_file_part(const fs::path& path, std::uint64_t offset, std::size_t n) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw io_error("cannot open " + path.string(), errno);
  std::string out(n, '\0');
  FdResult r = read_fd_full(fd.get(), std::as_writable_bytes(std::span(out)), offset);
  if (r.err) throw io_error("cannot read " + path.string(), r.err);
  out.resize(r.bytes);
  return out;
}

void atomic_copy(const fs::path& from, const fs::path& to, unsigned mode) {
  UniqueFd fd(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw io_error("cannot open " + from.string(), errno);
  AtomicFile out(to, mode);
  std::vector<std::byte> buf(1 << 20);
  for (;;) {
    FdResult r = read_fd_some(fd.get(), buf);
    if (r.err) throw io_error("cannot read " + from.string(), r.err);
    if (r.bytes == 0) break;
    out.write(std::span<const std::byte>(buf.data(), r.bytes));
  }
  out.commit();
}

fs::path make_temp_dir(std::string_view what) {
  std::string tmpl = (fs::temp_directory_path() / ("piprov-" + std::string(what) + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data()))
    throw io_error("cannot create a temporary directory in " + fs::temp_directory_path().string(), errno);
  return tmpl;
}

std::string read_file(const fs::path& path) {
  std::string out;
  if (int err = read_path(path, std::string::npos - 1, out, nullptr)) throw_read_error(path, err);
  return out;
}

bool is_file(const fs::path& path) noexcept {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::optional<std::string> read_file_if_exists(const fs::path& path) {
  std::string out;
  int err = read_path(path, std::string::npos - 1, out, nullptr);
  if (err == ENOENT || err == ENOTDIR) return std::nullopt;
  if (err) throw_read_error(path, err);
  return out;
}

std::optional<std::string> read_capped(std::istream& in, std::size_t max_bytes, const std::string& what) {
  std::string bytes(max_bytes + 1, '\0');
  errno = 0;
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (in.bad()) throw io_error("cannot read " + what, errno ? errno : EIO);
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (bytes.size() > max_bytes) return std::nullopt;
  return bytes;
}

std::string not_a_regular_file(const std::string& path) {
  return path + " is not a regular file: pass a file (or - for standard input where supported)";
}

std::optional<std::string> read_file_capped(const std::string& path, std::size_t max_bytes, const std::string& what) {
  if (path == "-") return read_capped(std::cin, max_bytes, what + " from standard input");
  // O_NONBLOCK: opening a FIFO without a writer would block forever; nothing
  // but a regular file is read (a device never ends, a directory is no input).
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd && (errno == ENOENT || errno == ENOTDIR))  // a path the user typed: usage, like every input
    throw Error(ErrorKind::Usage, path + " does not exist: give the path of the " + what + " file");
  if (!fd) throw io_error("cannot open " + what + " " + path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw io_error("cannot read " + what + " " + path, errno);
  if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::Usage, not_a_regular_file(path));
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0)
    throw io_error("cannot read " + what + " " + path, errno);
  std::string out;
  bool over = false;
  if (int err = read_fd(fd.get(), max_bytes, out, &over)) throw io_error("cannot read " + what + " " + path, err);
  if (over) return std::nullopt;
  return out;
}

std::optional<std::string> read_system_file(const fs::path& path) {
  std::string out;
  if (read_path(path, kSystemFileMax, out, nullptr) != 0) return std::nullopt;
  return out;
}

std::string read_attr(const fs::path& path) {
  auto text = read_system_file(path);
  if (!text) return "";
  std::string_view v(*text);
  v = v.substr(0, v.find('\n'));
  while (!v.empty() && (v.back() == '\0' || v.back() == ' ' || v.back() == '\t' || v.back() == '\r'))
    v.remove_suffix(1);
  return std::string(trim(v));
}

}  // namespace piprov
