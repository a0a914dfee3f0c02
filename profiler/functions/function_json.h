// What rprof writes of a hot function beside its metrics: the "source" key of its JSON
// ({"file": …, "lines": [first, last]}, from its line_first / line_last metrics, source sim, the
// file in their note), and its hot lines (functions/hot_lines.h): the line regions that are
// its, hottest first, with each one's bytes per FLOP and a loop's last line, for JSON's "lines"
// and show's table.
#ifndef RPROF_FUNCTIONS_FUNCTION_JSON_H_
#define RPROF_FUNCTIONS_FUNCTION_JSON_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/metric.h"
#include "functions/hot_lines.h"

namespace rprof {

// Writes "source" into the object being written; nothing when no line is known.
void WriteFunctionSource(const std::vector<const Metric*>& metrics, JsonWriter* w);

// One of a function's hot lines: its region, file and line, and its metrics. A loop's lines are
// one hot line (counters/sim/line_counts.h): `where` its first line, last_line its last (its
// line_last metric); last_line == where.line for one line.
struct FunctionLine {
  std::string region;
  SourceLine where;
  uint32_t last_line = 0;
  std::vector<const Metric*> metrics;
};

// Where a hot line is, as a table shows it: the file's own name (the JSON has its path) and its
// line, or a loop's first and last line: "hot_functions.c:26", "loops.c:10-12".
std::string LinePlace(const FunctionLine& line);

// The lines of `function` among a run's metrics grouped by region, in the order they were
// chosen in (time, then FLOPs). A line region whose name also reads as a line of a longer
// function (one named `function` + "@…", a versioned symbol) is that function's.
std::vector<FunctionLine> FunctionLines(
    std::string_view function, const std::map<std::string, std::vector<const Metric*>>& by_region);

// A line's bytes per FLOP at `level` ("l1", "l2", "l3", "dram"): bytes_<level> / flops, both of
// source sim; nullopt when either is absent or it has no FLOPs.
std::optional<double> BytesPerFlop(const std::vector<const Metric*>& metrics,
                                   std::string_view level);

// Writes "file", "line", for a loop's lines "last_line" (its range is line..last_line; absent:
// one line), and "bytes_per_flop" ({LEVEL: {"sim": B/FLOP}}, the levels that have one) into the
// line's object being written.
void WriteLineHead(const FunctionLine& line, JsonWriter* w);

// Why a function has no hot lines (its hot_lines metric's note when absent); "" otherwise.
std::string NoLinesReason(const std::vector<const Metric*>& function_metrics);

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_FUNCTION_JSON_H_
