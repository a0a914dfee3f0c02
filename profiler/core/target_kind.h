// What a run measured: the closed list of target kinds, one table read by the JSON reader, the
// store, placement, the trust notes and the reports alike (a run's `target_kind` holds the
// name). Each row carries the traits code asks of a kind: code asks the trait, never compares
// the name (STYLE.md point 17). A new kind is a row here, its Target implementation under
// targets/, and nothing else: the store's target_kinds table follows this one at every open.
#ifndef RPROF_CORE_TARGET_KIND_H_
#define RPROF_CORE_TARGET_KIND_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/closed_list.h"

namespace rprof {

enum class TargetKind { kBuiltin, kPlugin, kExecutable, kBenchmark };

// Who declares a run's FLOPs, bytes and precision, and so what a declaration that disagrees
// with the counts means.
enum class WorkDeclarer {
  kKernelModel,        // the kernel's model (rprof/kernel.h): bytes compulsory by definition
  kCommandFlags,       // the user's --flops, --bytes and --precision, for the whole program
  kBenchmarkCounters,  // the benchmark's own counters, per iteration; --precision
};

struct TargetKindInfo {
  TargetKind kind;
  std::string_view name;  // as stored in runs.target_kind and written in the JSON
  std::string_view text;  // what it is, for help and error messages
  WorkDeclarer declarer;
  // The run is a whole process: its threads are the program's own (counted, not a parameter),
  // and its arguments are part of what ran. Otherwise one kernel or one instance, whose
  // threads are its `threads` parameter.
  bool whole_process;
  // `target` is the instance's own name (the kernel's, "BM_saxpy/1024") and command.front()
  // the file it came from (the plugin's .so, the benchmark binary), which reports show beside
  // the name; otherwise the command line is the target as reports show it.
  bool named_by_instance;
  // The instance's name carries its arguments ("BM_saxpy/1024"): reports do not repeat them.
  bool name_carries_params;
  // Compiled by rprof's own build, so the ISA its code was built for is known (avx2).
  bool built_by_rprof;
  // `target` is the program's path: its realpath, or in runs stored before that (7428b0f) as
  // typed, "./app" relative to the run's cwd, which an absolute --kernel still finds.
  bool target_is_path;
};

inline constexpr std::array<TargetKindInfo, 4> kTargetKinds = {{
    {TargetKind::kBuiltin, "builtin", "a kernel built into rprof", WorkDeclarer::kKernelModel,
     false, false, false, true, false},
    {TargetKind::kPlugin, "plugin", "a kernel from a plugin (.so)", WorkDeclarer::kKernelModel,
     false, true, false, false, false},
    {TargetKind::kExecutable, "executable", "a whole program", WorkDeclarer::kCommandFlags, true,
     false, false, false, true},
    {TargetKind::kBenchmark, "benchmark", "one instance of a Google Benchmark binary",
     WorkDeclarer::kBenchmarkCounters, false, true, true, false, false},
}};

inline std::string_view TargetKindName(TargetKind kind) {
  return NameIn<&TargetKindInfo::kind>(kTargetKinds, kind);
}
inline std::optional<TargetKind> ParseTargetKind(std::string_view name) {
  return ParseIn<&TargetKindInfo::kind>(kTargetKinds, name);
}
// "builtin, plugin, executable or benchmark": the names, for "expected ..." messages.
inline std::string TargetKindChoices() { return ChoicesIn(kTargetKinds); }

// The row of `kind`.
inline const TargetKindInfo& TargetKindRow(TargetKind kind) {
  for (const TargetKindInfo& info : kTargetKinds)
    if (info.kind == kind) return info;
  return kTargetKinds[0];  // unreachable: every enumerator has its row
}

// The row of a stored name (a run's target_kind). The store and the JSON reader refuse names
// not in the table, so only a hand-made RunRecord has one: it is taken for a kernel whose
// build rprof does not know (the plugin's row), as reports have always treated it.
inline const TargetKindInfo& TargetKindTraits(std::string_view name) {
  return TargetKindRow(ParseTargetKind(name).value_or(TargetKind::kPlugin));
}

}  // namespace rprof

#endif  // RPROF_CORE_TARGET_KIND_H_
