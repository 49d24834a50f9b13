#pragma once
// How write, verify, backup and clone print what they did: with --json, a
// failure still prints the command's JSON object (scripts get one either way)
// before the error line, and a result prints as JSON; without, as its text
// summary. One place for that policy (issue 31).
#include <fmt/format.h>

#include <string>

#include "core/error.hpp"
#include "core/finding.hpp"

namespace piprov::cli {

/// Runs `run()` and prints its result on stdout: dump_json(to_json(r)) with
/// `json`, else to_text(r) (a line end added unless it ends with one). An
/// Error thrown by run() is printed as dump_json(failure(e)) first when
/// `json`, then rethrown. Returns the result.
template <class Run, class Failure, class ToJson, class ToText>
auto run_and_print(bool json, const Run& run, const Failure& failure, const ToJson& to_json, const ToText& to_text) {
  decltype(run()) r;
  try {
    r = run();
  } catch (const Error& e) {
    if (json) fmt::print("{}\n", dump_json(failure(e)));
    throw;
  }
  if (json) {
    fmt::print("{}\n", dump_json(to_json(r)));
  } else {
    const std::string text = to_text(r);
    fmt::print("{}{}", text, text.ends_with('\n') ? "" : "\n");
  }
  return r;
}

}  // namespace piprov::cli
