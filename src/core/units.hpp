#pragma once
// Sizes, rates and durations: parsing and printing with honest units.
// MiB = 2^20 bytes, MB = 10^6 bytes (IEC 80000-13); fio's size suffixes are
// binary by default (fio HOWTO "kb_base=1024").
#include <cstdint>
#include <string>
#include <string_view>

namespace piprov {

/// Parses "4096", "4k", "4K", "4KiB", "1M", "2G", "1T" (binary: k=1024) and
/// "4KB"/"1MB"/"1GB" (decimal, as fio's kb_base=1000 spells them); returns bytes.
/// Throws Error{Usage} naming `what` on anything else or on overflow.
std::uint64_t parse_size(std::string_view text, std::string_view what = "size");

/// "1.9 GiB", "512 MiB", "4.0 KiB", "17 B": binary units, 1 decimal from KiB up.
std::string format_bytes(std::uint64_t bytes);

/// Bytes per second as "123.4 MiB/s".
std::string format_mib_s(double bytes_per_second);

/// Bytes per second as "129.4 MB/s" (decimal).
std::string format_mb_s(double bytes_per_second);

/// Seconds as "0.84 s", "12.3 s", "4m05s", "1h02m".
std::string format_duration(double seconds);

}  // namespace piprov
