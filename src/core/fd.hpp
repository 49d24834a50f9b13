#pragma once
// An owned file descriptor: closed when it goes out of scope (RAII), so no
// error path leaks one. The model is ccache's util/Fd.hpp.
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace piprov {

/// Owns one file descriptor (-1 = none). Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  /// Gives up ownership; returns the descriptor.
  int release() noexcept { return std::exchange(fd_, -1); }
  /// Closes the current descriptor (errors ignored) and owns `fd`.
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  /// Closes now and returns 0 or the errno of close(2): for a file that was
  /// written, close can report a deferred write error (close(2), NOTES).
  int close() noexcept {
    if (fd_ < 0) return 0;
    int rc = ::close(std::exchange(fd_, -1));
    return rc == 0 ? 0 : errno;
  }

 private:
  int fd_ = -1;
};

}  // namespace piprov
