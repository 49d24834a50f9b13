#pragma once
// The text of `piprov write` and `piprov verify` (and of provision's write
// with several disks), next to their results as result_json.cpp is: the
// summary lines, their verdict words ("ok", "FAILED", "decode-bound",
// "device-bound", "hash-bound") and the exit policy. src/cli prints them.
#include <string>

#include "image/verify.hpp"
#include "image/write.hpp"

namespace piprov::image {

/// The summary (no final newline): one target
/// "wrote the 1.9 GiB image (xz 402.1 MiB) to /dev/sdb in 12.1 s (160.3 MiB/s); verified in 6.0 s (323.0 MiB/s);
/// XXH3-128 HEX", several "wrote the 1.9 GiB image (xz 402.1 MiB) to 2 of 3 targets in 14.0 s; XXH3-128 HEX" and a line
/// per target
/// ("  /dev/sdb: ok, ..." / "  /dev/sdc: FAILED: <its error, naming the offset>"); then "speed: decode-bound: ..."
/// (the verdict, waits, xz blocks) and, when verified, "verify: device-bound: ..." lines. MiB/s is MiB (2^20).
std::string write_summary(const WriteResult& r);

/// The exit code of a write that returned: 0 when every target succeeded, 5
/// (ErrorKind::Partial) when some failed (none: no_target_written() is the error).
int write_exit_code(const WriteResult& r);

/// `piprov verify`'s text (ends with a newline): "verified: DEV matches IMAGE
/// (3.5 GiB, xz) in 9.1 s (120.0 MiB/s); XXH3-128 HEX", the rate over the
/// bytes compared (as write's verify rate), then, when free space was not
/// compared, "compared 1.2 GiB written; 2.3 GiB free space not compared (as
/// piprov write skips it; --full compares it)".
std::string verify_summary(const VerifyResult& r);

}  // namespace piprov::image
