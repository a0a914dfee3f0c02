// Lookups over a closed list's table: a std::array of entries, each with its enum value (the
// member kKey names it) and its `name`, as core/source.h, core/target_kind.h, core/run.h's
// statuses and core/memory_level.h keep them. One loop for all of them, so that a list is its
// table and nothing else.
#ifndef RPROF_CORE_CLOSED_LIST_H_
#define RPROF_CORE_CLOSED_LIST_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/text.h"

namespace rprof {

// The name of `value`; "?" for a value not in the table (a cast from a wider integer).
template <auto kKey, typename Entry, size_t N, typename Enum>
std::string_view NameIn(const std::array<Entry, N>& table, Enum value) {
  for (const Entry& entry : table)
    if (entry.*kKey == value) return entry.name;
  return "?";
}

// The value named `name`; nullopt for a name not in the table.
template <auto kKey, typename Entry, size_t N>
auto ParseIn(const std::array<Entry, N>& table, std::string_view name)
    -> std::optional<std::remove_cvref_t<decltype(table[0].*kKey)>> {
  for (const Entry& entry : table)
    if (std::string_view(entry.name) == name) return entry.*kKey;
  return std::nullopt;
}

// "a, b or c": every name, for "expected ..." and "use ..." messages.
template <typename Entry, size_t N>
std::string ChoicesIn(const std::array<Entry, N>& table) {
  std::vector<std::string> names;
  for (const Entry& entry : table) names.emplace_back(entry.name);
  return JoinChoices(names);
}

}  // namespace rprof

#endif  // RPROF_CORE_CLOSED_LIST_H_
