#pragma once
// Rendering the fleet side by side: one row per host (status, boot layout,
// findings counts by severity per check, BOOT_ORDER, first error), then one
// row per host and bench target (a figure per test: IOPS for random tests,
// MiB/s otherwise). Text (aligned columns), markdown tables, or JSON
// (schema "piprov.report/1", docs/fleet.md).
#include <nlohmann/json.hpp>
#include <string>

#include "fleet/fleet.hpp"

namespace piprov::fleet {

enum class Format { Text, Markdown, Json };

/// "text" | "markdown" | "json"; throws Error{Usage} otherwise.
Format parse_format(const std::string& name);
/// "text | markdown | json" (--format's help).
std::string format_choices();

/// The report in `format`, ending in a newline.
std::string render(const Fleet& fleet, Format format);

/// {"schema": "piprov.report/1", "hosts": [...], "summary": {"hosts", "failed", "exit_code"}}.
nlohmann::json fleet_json(const Fleet& fleet);

}  // namespace piprov::fleet
