#pragma once
// The options `piprov write` shares with `piprov provision` (and `verify`
// shares --progress), so the commands parse IMAGE DEVICE and --no-verify/
// --yes/--unmount/--sha256/--sha256-file/--progress/--threads identically,
// and print the same summary (image/result_text.hpp).
#include <CLI/CLI.hpp>
#include <string>

#include "cli/progress_render.hpp"
#include "image/write.hpp"

namespace piprov::cli {

/// Adds positionals IMAGE DEVICE... (required; several devices are written from one decode) and the write options to
/// `cmd`, bound to `opts` and `progress` (which must outlive parsing: keep them in a shared_ptr). Also installs the
/// default confirmation: a y/N question on the terminal; with no terminal on stdin it refuses (Error{Usage}: "pass
/// --yes").
void add_write_options(CLI::App* cmd, image::WriteOptions& opts, ProgressMode& progress);

/// The default confirmation of write, provision and clone: `summary` and a y/N question on stderr, the answer read
/// from stdin. Throws Error{Usage} ("pass --yes") when stdin is not a terminal, Error{Interrupted} on Ctrl-C.
bool ask_on_terminal(const std::string& summary);

/// Adds `--progress MODE` (auto, tty, plain, json, none) bound to `mode`.
void add_progress_option(CLI::App* cmd, ProgressMode& mode);

/// `mode` with Auto resolved against stderr (a terminal or not).
ProgressMode resolve_on_stderr(ProgressMode mode);

/// "piprov: error: MESSAGE" on stderr for each failed target (stdout flushed first).
void print_target_errors(const image::WriteResult& r);

}  // namespace piprov::cli
