#pragma once
// Atomic replacement of a file: write a temp file in the same directory,
// fsync it, rename over the target, fsync the directory. A crash at any point
// leaves either the old or the new file complete, never a mix.
// Model: ccache src/ccache/core/atomicfile.cpp; rule: rename(2) is atomic,
// fsync(2) of the directory makes the rename durable.
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

#include "core/fd.hpp"

namespace piprov {

/// One pending replacement of `target`. Write the new content with write(),
/// then commit(). If the object is destroyed without commit() the temp file is
/// removed and `target` is untouched. Not copyable.
class AtomicFile {
 public:
  /// Creates "<dir>/.<name>.tmp.XXXXXX" with `mode` (default 0644).
  /// Throws Error{Io} when the directory is not writable.
  explicit AtomicFile(std::filesystem::path target, unsigned mode = 0644);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends bytes. Throws Error{Io} (e.g. ENOSPC on a full FAT) naming the temp file.
  void write(std::span<const std::byte> data);
  void write(std::string_view text);

  /// Path of the temp file (to validate it before commit()).
  const std::filesystem::path& temp_path() const { return temp_; }
  /// The temp file's descriptor, for a writer of its own (piprov backup's
  /// encoders, which also leave holes with lseek); valid until commit().
  int fd() const { return fd_.get(); }

  /// fsync(temp), close, rename(temp, target), fsync(dir). Throws Error{Io}.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  UniqueFd fd_;
  bool committed_ = false;
};

/// Replaces `target` with `content` atomically (AtomicFile in one call).
void atomic_write(const std::filesystem::path& target, std::string_view content, unsigned mode = 0644);

/// fsync() the directory itself so a rename in it is durable. Throws Error{Io}.
void fsync_directory(const std::filesystem::path& dir);

}  // namespace piprov
