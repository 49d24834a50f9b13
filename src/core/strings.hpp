#pragma once
// Small string helpers shared by every module (one of each).
#include <string>
#include <string_view>
#include <vector>

namespace piprov {

/// `s` without leading and trailing ASCII white space (space, \t, \r, \n, \v, \f).
std::string_view trim(std::string_view s);

/// `s` with ASCII letters lowered (other bytes unchanged).
std::string to_lower(std::string_view s);

/// The parts joined with `sep` between them ("" for none).
std::string join(const std::vector<std::string>& parts, std::string_view sep);

/// `s` cut at every `sep`; keeps empty fields ("a,,b" -> {"a", "", "b"};
/// "" -> {""}).
std::vector<std::string> split(std::string_view s, char sep);

/// `s` as one word for /bin/sh: unchanged when it holds only
/// [A-Za-z0-9/._+:=-] (and is not empty), else in single quotes with each '
/// written as '\'' (POSIX Shell Command Language, 2.2.3 Single-Quotes).
std::string shell_quote(std::string_view s);

/// Levenshtein distance between `a` and `b` (byte-wise, case-sensitive), or
/// `cap` + 1 as soon as it must exceed `cap`.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t cap);

/// The offset (0-based, in bytes) of the first byte of `s` that does not
/// start a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
/// surrogates U+D800..U+DFFF, nothing above U+10FFFF, no truncated sequence),
/// or std::string_view::npos when all of `s` is UTF-8.
std::size_t utf8_invalid_at(std::string_view s);

/// The bytes of a UTF-8 byte order mark, as some Windows editors save it at the start of a text
/// file (Unicode Standard, 23.8 "Specials": U+FEFF; RFC 3629 section 6).
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

/// What a finding says of a file that starts with kUtf8Bom before `first`, the rest of its first line:
/// "starts with a UTF-8 byte order mark (bytes EF BB BF) before '[all]'".
std::string utf8_bom_words(std::string_view first);

/// The fix for a file that starts with kUtf8Bom: "save the file as UTF-8 without a byte order mark
/// (e.g. sed -i '1s/^\xEF\xBB\xBF//' FILE)", with `file` shell-quoted for FILE ("FILE" when empty).
std::string utf8_bom_fix(std::string_view file);

}  // namespace piprov
