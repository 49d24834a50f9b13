#pragma once
// Limits of the numeric bench options: one table read by the command line
// (CLI11 checks, cli/cmd_bench.cpp) and by validate() (bench/job.hpp), so an
// option is accepted or refused the same way, with the same message, whether
// it comes from the command line or from a profile.
// Ranges follow fio's HOWTO where fio has one (rwmixread 0..100); the others
// are piprov's own bounds on what one run may allocate and how long it runs.
#include <span>
#include <string>
#include <string_view>

namespace piprov::bench {

/// One option's accepted range, inclusive at both ends.
struct OptionLimit {
  std::string_view option;  ///< as typed on the command line: "--iodepth"
  double min, max;
  std::string_view unit;  ///< "" or "seconds" / "bytes", for the message
  bool integer;           ///< the value must be a whole number
};

/// The table: --bs, --iodepth, --numjobs, --runtime, --ramp, --rwmixread.
std::span<const OptionLimit> option_limits();

/// The row for `option` ("--iodepth"). Throws std::out_of_range for an option
/// not in the table (a programming error).
const OptionLimit& option_limit(std::string_view option);

/// "" when `value` is a finite number within the limit (a whole one when
/// `integer`), else the reason without the option's name, e.g.
/// "must be a whole number from 1 to 4096, got 5000".
std::string limit_error(const OptionLimit& limit, double value);

/// The same for a value as typed ("5000", "nan", "abc": not a number is an
/// error too), quoting the text: "must be a whole number from 1 to 4096, got '5000'".
std::string limit_error(const OptionLimit& limit, std::string_view text);

/// Throws Error{Usage} "OPTION: REASON" (e.g. "--iodepth: must be a whole
/// number from 1 to 4096, got 5000") when limit_error() is not empty.
void check_limit(const OptionLimit& limit, double value);

}  // namespace piprov::bench
