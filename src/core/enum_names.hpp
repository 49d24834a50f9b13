#pragma once
// One way to name an enum's values and to parse those names back: each enum
// that appears in output, JSON or on the command line has one constexpr table
// of {value, name} pairs, and enum_name() / parse_enum() / enum_choices() read
// it. The names are piprov's stable vocabulary (JSON schema values, command
// line choices): a table lists every value of its enum exactly once.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace piprov {

/// One row of an enum's name table.
template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

/// The name of `v` in `table`; "?" when the table lacks it (a table must list
/// every value; tests check that for each table).
template <class E, std::size_t N>
constexpr std::string_view enum_name(const EnumName<E> (&table)[N], E v) {
  for (const auto& row : table)
    if (row.value == v) return row.name;
  return "?";
}

/// The value whose name is exactly `name`; nullopt when none is.
template <class E, std::size_t N>
constexpr std::optional<E> parse_enum(const EnumName<E> (&table)[N], std::string_view name) {
  for (const auto& row : table)
    if (row.name == name) return row.value;
  return std::nullopt;
}

/// Every name of `table` joined by `sep` ("psync|libaio|io_uring"), the last
/// two by `last_sep` when given ("table, markdown, csv or json"), for help
/// texts and "use one of ..." errors. Rows with an empty name are left out.
template <class E, std::size_t N>
std::string enum_choices(const EnumName<E> (&table)[N], std::string_view sep = "|", std::string_view last_sep = {}) {
  std::string out;
  std::size_t named = 0, seen = 0;
  for (const auto& row : table) named += row.name.empty() ? 0 : 1;
  for (const auto& row : table) {
    if (row.name.empty()) continue;
    if (seen > 0) out += (seen + 1 == named && !last_sep.empty()) ? last_sep : sep;
    out += row.name;
    ++seen;
  }
  return out;
}

}  // namespace piprov
