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
#include <cstddef>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>

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

}  // namespace piprov
