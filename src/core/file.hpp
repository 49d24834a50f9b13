#pragma once
// Reading files: one error contract for all of piprov.
//  - Files the user names (configs, images, fio outputs) and files piprov
//    needs: a failure throws Error (Io with errno, Usage for a directory);
//    read_file_if_exists() returns nullopt only when the file is absent.
//  - User-named inputs are read with a cap (read_file_capped): regular files
//    only (a FIFO, a device such as /dev/zero, a directory: Error{Usage}, and
//    the open never blocks), nullopt when over the cap, never slurped whole.
//  - System files (under /sys, /proc and /etc/default, through a SysRoot):
//    absence is normal (attributes differ per device, kernel and board), so
//    these never throw: read_system_file() returns nullopt, read_attr() "".
//  - Reads and writes on a file descriptor go through read_fd_some(),
//    read_fd_full() and write_fd_full(): the one EINTR loop (retry_eintr())
//    is here, a caller chooses what happens on EINTR (a cancellation check).
#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace piprov {

/// True when `path` is a regular file (after symlinks); false for anything
/// else, including a path that cannot be examined. Never throws.
bool is_file(const std::filesystem::path& path) noexcept;

/// The whole file (binary). Throws Error{Usage} "<path> is a directory" and
/// Error{Io} "cannot read <path>: <strerror> (<ERRNO>)" for any other failure.
std::string read_file(const std::filesystem::path& path);

/// read_file(), but std::nullopt when `path` does not exist (ENOENT, ENOTDIR).
/// Throws like read_file() for every other failure.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

/// Reads `in` to its end, but at most `max_bytes` bytes.
/// Returns the bytes, or std::nullopt when the stream holds more than
/// `max_bytes` (the caller names the input and says what it expected).
/// Throws Error{Io} "cannot read <what>: ..." when the stream reports a read error.
std::optional<std::string> read_capped(std::istream& in, std::size_t max_bytes, const std::string& what);

/// read_capped() on a file the user named; `path` "-" reads standard input.
/// Only a regular file (after symlinks) is read: it is opened with O_NONBLOCK
/// (a FIFO without a writer never blocks the open) and checked with fstat
/// before the first read. Throws Error{Usage} "<path> does not exist: give the
/// path of the <what> file" (ENOENT, ENOTDIR), Error{Usage}
/// not_a_regular_file(path) for a FIFO, socket, device or directory,
/// Error{Io} "cannot open <what> <path>" when it cannot be opened otherwise
/// (errno in the message).
std::optional<std::string> read_file_capped(const std::string& path, std::size_t max_bytes, const std::string& what);

/// "<path> is not a regular file: pass a file (or - for standard input where
/// supported)": the refusal of read_file_capped() for anything but a regular file.
std::string not_a_regular_file(const std::string& path);

/// A system file (/sys, /proc, /proc/device-tree, /etc/default), whole and
/// binary, at most 1 MiB; std::nullopt when it cannot be opened or read.
/// Never throws.
std::optional<std::string> read_system_file(const std::filesystem::path& path);

/// A sysfs/procfs attribute: the first line of read_system_file(), without
/// surrounding white space and NULs (device-tree strings end in NUL);
/// "" when unreadable. Never throws.
std::string read_attr(const std::filesystem::path& path);

/// Called on each EINTR before the system call is retried; may throw (e.g.
/// throw_if_cancelled()). Empty: just retry.
using OnInterrupt = std::function<void()>;

/// Calls `call` (a system call returning < 0 with errno set on failure) until
/// it does not fail with EINTR, calling `on_interrupt` before each retry.
/// Returns the last result (errno still set when < 0). The one EINTR loop.
template <class Call>
auto retry_eintr(Call&& call, const OnInterrupt& on_interrupt = {}) -> decltype(call()) {
  for (;;) {
    auto r = call();
    if (r >= 0 || errno != EINTR) return r;
    if (on_interrupt) on_interrupt();
  }
}

/// What a read or write on a file descriptor did: `bytes` transferred before
/// it stopped, and `err`, the errno that stopped it (0: none; a read that met
/// the end of the file has err 0 and may have fewer bytes than asked).
struct FdResult {
  std::size_t bytes = 0;
  int err = 0;
};

/// One read(2), or pread(2) at byte `offset` when given (the descriptor's
/// offset then stays), into `out`: up to out.size() bytes, 0 at the end of the
/// file. EINTR is retried (retry_eintr). Never throws by itself.
FdResult read_fd_some(int fd, std::span<std::byte> out, std::optional<std::uint64_t> offset = std::nullopt,
                      const OnInterrupt& on_interrupt = {});

/// Reads until `out` is full, the file ends or an error: read_fd_some() in a
/// loop (pread from `offset` onwards when given). Never throws by itself.
FdResult read_fd_full(int fd, std::span<std::byte> out, std::optional<std::uint64_t> offset = std::nullopt,
                      const OnInterrupt& on_interrupt = {});

/// Writes all of `data`: write(2), or pwrite(2) at byte `offset` when given.
/// A write that transfers nothing stops with ENOSPC; EINTR is retried.
/// Never throws by itself.
FdResult write_fd_full(int fd, std::span<const std::byte> data, std::optional<std::uint64_t> offset = std::nullopt,
                       const OnInterrupt& on_interrupt = {});

/// The rest of `fd` from its current offset, whole. Throws Error{Io}
/// "cannot read <what>: <strerror> (<ERRNO>)".
std::string read_fd_to_end(int fd, const std::string& what);

/// Up to `n` bytes of the file at `path` from byte `offset` (fewer when the
/// file ends first, "" past its end), binary. Throws Error{Io} "cannot open
/// <path>" or "cannot read <path>" (errno in the message).
std::string read_file_part(const std::filesystem::path& path, std::uint64_t offset, std::size_t n);

/// Copies the file `from` to `to` atomically (AtomicFile: a temp file beside
/// `to`, fsync, rename, directory fsync) with permissions `mode`: `to` is the
/// old file or the whole new one, never a mix. Throws Error{Io} naming the
/// file that failed; `to` is then untouched.
void atomic_copy(const std::filesystem::path& from, const std::filesystem::path& to, unsigned mode = 0644);

/// A new private directory /tmp/piprov-<what>-XXXXXX (mkdtemp(3): mode 0700,
/// a name no one else has), for mount points and mtools copies. The caller
/// removes it. Throws Error{Io} "cannot create a temporary directory in /tmp: ...".
std::filesystem::path make_temp_dir(std::string_view what);

}  // namespace piprov
