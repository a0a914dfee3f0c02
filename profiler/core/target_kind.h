// What a run measured: the closed list of target kinds, one table read by the JSON reader, the
// store and the reports alike (a run's `target_kind` holds the name). A new kind is a line here
// and its Target implementation under targets/.
#ifndef RPROF_CORE_TARGET_KIND_H_
#define RPROF_CORE_TARGET_KIND_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/closed_list.h"

namespace rprof {

enum class TargetKind { kBuiltin, kPlugin, kExecutable, kBenchmark };

struct TargetKindInfo {
  TargetKind kind;
  std::string_view name;  // as stored in runs.target_kind and written in the JSON
  std::string_view text;  // what it is, for help and error messages
};

inline constexpr std::array<TargetKindInfo, 4> kTargetKinds = {{
    {TargetKind::kBuiltin, "builtin", "a kernel built into rprof"},
    {TargetKind::kPlugin, "plugin", "a kernel from a plugin (.so)"},
    {TargetKind::kExecutable, "executable", "a whole program"},
    {TargetKind::kBenchmark, "benchmark", "one instance of a Google Benchmark binary"},
}};

inline std::string_view TargetKindName(TargetKind kind) {
  return NameIn<&TargetKindInfo::kind>(kTargetKinds, kind);
}
inline std::optional<TargetKind> ParseTargetKind(std::string_view name) {
  return ParseIn<&TargetKindInfo::kind>(kTargetKinds, name);
}
// "builtin, plugin, executable or benchmark": the names, for "expected ..." messages.
inline std::string TargetKindChoices() { return ChoicesIn(kTargetKinds); }

}  // namespace rprof

#endif  // RPROF_CORE_TARGET_KIND_H_
