#pragma once
// Bounded reads of user-named inputs. piprov's text and EEPROM inputs are
// kilobytes to a few MiB; a path such as /dev/zero, /dev/sda or a disk image
// given by mistake must be refused after a bounded read, never slurped whole
// (`eeprom check /dev/zero` must fail fast, not run out of memory).
#include <cstddef>
#include <istream>
#include <optional>
#include <string>

namespace piprov {

/// Reads `in` to its end, but at most `max_bytes` bytes.
/// Returns the bytes, or std::nullopt when the stream holds more than
/// `max_bytes` (the caller names the input and says what it expected).
/// Throws Error{Io} "cannot read <what>: ..." when the stream reports a read error.
std::optional<std::string> read_capped(std::istream& in, std::size_t max_bytes, const std::string& what);

/// read_capped() on a file; `path` "-" reads standard input.
/// Throws Error{Usage} when `path` is a directory, Error{Io} "cannot open <what> <path>"
/// when it cannot be opened (errno in the message).
std::optional<std::string> read_file_capped(const std::string& path, std::size_t max_bytes, const std::string& what);

}  // namespace piprov
