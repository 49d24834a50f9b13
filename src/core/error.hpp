#pragma once
// piprov::Error and the exit codes every command uses.
// 130 = 128 + SIGINT, as shells report a process ended by Ctrl-C.
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace piprov {

/// What went wrong, which decides the process exit code.
enum class ErrorKind {
  Check = 1,          ///< a check found problems (eeprom check, boot check)
  Usage = 2,          ///< bad arguments or input the user must change
  Io = 3,             ///< I/O or device error (errno in the message)
  Verify = 4,         ///< read-back verification or checksum mismatch
  Partial = 5,        ///< several targets: some failed, the others were written (write/provision)
  Interrupted = 130,  ///< SIGINT / SIGTERM
};

struct Finding;  // core/finding.hpp

/// The one exception type piprov's libraries throw for expected failures.
/// message() is a complete sentence naming the thing and what to do; main()
/// prints it on one line as "piprov: error: <message>" and exits with code().
/// A refusal that comes from a check (the seed check of `provision`) carries
/// the check's findings: main() prints them first, in the findings layout
/// (findings_text(), core/finding.hpp), on stderr.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Error(ErrorKind kind, const std::string& message, std::vector<Finding> findings);
  /// An error caused by a failed system call: sys_errno() is `err`, so callers
  /// decide by the errno (ENODEV, ENOSPC), never by matching message text.
  static Error system(ErrorKind kind, const std::string& message, int err) {
    Error e(kind, message);
    e.sys_errno_ = err;
    return e;
  }
  ErrorKind kind() const noexcept { return kind_; }
  /// The errno of the failed system call behind the error; 0 when there is none.
  int sys_errno() const noexcept { return sys_errno_; }
  int code() const noexcept { return static_cast<int>(kind_); }
  /// The findings behind the error, in the order to print; empty for most errors.
  const std::vector<Finding>& findings() const noexcept;

 private:
  ErrorKind kind_;
  int sys_errno_ = 0;
  std::shared_ptr<const std::vector<Finding>> findings_;  ///< shared: copying an exception must not throw
};

/// Error of kind Io for a failed system call: "<what>: <strerror(err)> (<ERRNAME>)", sys_errno() = err.
Error io_error(const std::string& what, int err);

/// "check", "usage", "io", "verify", "partial", "interrupted" (the "kind" of an error in --json).
std::string_view error_kind_name(ErrorKind k);

/// Symbolic errno name ("ENOSPC"), or "errno N" when unknown.
std::string errno_name(int err);

}  // namespace piprov
