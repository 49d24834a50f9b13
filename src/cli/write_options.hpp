#pragma once
// The options `piprov write` shares with `piprov provision`, so both commands
// parse IMAGE DEVICE and --no-verify/--yes/--unmount/--sha256/--sha256-file/
// --progress/--threads identically, and print the same summary.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "image/write.hpp"

namespace piprov::cli {

/// Adds positionals IMAGE DEVICE (required) and the write options to `cmd`,
/// bound to `opts` (which must outlive parsing: keep it in a shared_ptr).
/// Also installs the default confirmation: a y/N question on the terminal;
/// with no terminal on stdin it refuses (Error{Usage}: "pass --yes").
void add_write_options(CLI::App* cmd, image::WriteOptions& opts);

/// One-line summary: sizes, times and throughput per phase, e.g.
/// "wrote 1.9 GiB (xz 402.1 MiB) to /dev/sdb in 12.1 s (160.3 MiB/s); verified in 6.0 s (323.0 MiB/s)".
std::string write_summary(const image::WriteResult& r);

/// WriteResult as JSON (schema in docs/write.md).
nlohmann::json write_result_json(const image::WriteResult& r);

}  // namespace piprov::cli
