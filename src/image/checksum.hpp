#pragma once
// The published checksum of the compressed IMAGE file: --sha256 HEX or
// --sha256-file SHA256SUMS (GNU coreutils `sha256sum` format "HEX  NAME" or
// "HEX *NAME", and BSD `sha256 -r`/`shasum --tag` "SHA256 (NAME) = HEX").
#include <string>

namespace piprov::image {

/// The expected SHA-256 (64 lowercase hex digits) of `image`, from `hex` or
/// from the line of `sums_file` naming the image's file name; "" when both are
/// empty. Throws Error{Usage}: malformed hex, both given, file unreadable, or
/// the image's name not listed (the message names what was looked for).
std::string expected_sha256(const std::string& hex, const std::string& sums_file, const std::string& image);

}  // namespace piprov::image
