// Which source lines of a hot function are shown (its hottest by time and by FLOPs: the loop a
// user would fix), and the region names their metrics carry. A line's metrics travel as a
// region's do (Metric::region = LineRegion(function, file, line)), stored with the run, but a
// line is not placed on the roofline nor listed as a region of its own: it is shown under its
// function (JSON functions.NAME.lines, show's "hot lines" table).
#ifndef RPROF_FUNCTIONS_HOT_LINES_H_
#define RPROF_FUNCTIONS_HOT_LINES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rprof {

// A source line's weight inside its function, as far as it is measured.
struct LineCandidate {
  std::string file;
  uint32_t line = 0;
  double flops = 0;                  // FLOPs (sim)
  double instructions = 0;           // executed instructions (sim)
  std::optional<double> time_share;  // its share of the run's sampled time, 0..1
};

// The `top` heaviest by time and the `top` heaviest by FLOPs.
struct HotLineRule {
  int top = 5;
};

// The chosen candidates' indexes, each once, ordered by time, then FLOPs, then file and line
// (the same counts give the same order). A line's "time" is its sampled share where any
// candidate has one; without sampling its share of the instructions stands for it, as for
// functions (SelectHotFunctions). Lines with neither time nor FLOPs are never chosen.
std::vector<size_t> SelectHotLines(const std::vector<LineCandidate>& candidates,
                                   const HotLineRule& rule);

// Every candidate's index, ordered as SelectHotLines orders its choice (to show stored lines
// in the order they were chosen in).
std::vector<size_t> OrderHotLines(const std::vector<LineCandidate>& candidates);

// The region name of a function's line: "ln:" + function + "@" + file + ":" + line; a loop's
// lines shown as one (counters/sim/line_counts.h) are named by its first line, their last line
// in the region's line_last metric.
inline constexpr std::string_view kLineRegionPrefix = "ln:";
std::string LineRegion(std::string_view function, std::string_view file, uint32_t line);
bool IsLineRegion(std::string_view region);

// Whether `region` is one rprof found in the code (a hot function's, "fn:", or a hot line's,
// "ln:") rather than one the program marked: marker-region lists leave these out.
bool IsHotCodeRegion(std::string_view region);

// A line region's file and line when it is one of `function`'s (read from the function's side:
// file names may hold ':' and '@'); nullopt otherwise.
struct SourceLine {
  std::string file;
  uint32_t line = 0;
};
std::optional<SourceLine> LineOfRegion(std::string_view region, std::string_view function);

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_HOT_LINES_H_
