// A hot function's sim counts split by source line, each line analysed as the function is
// (SimAnalyzer): its FLOPs, instructions and bytes at every level, so its bytes per FLOP. Beside
// them each line's share of the sampled time (FunctionSamples::by_line), and the lines worth
// showing (SelectHotLines) stored as regions LineRegion(function, file, line).
//
// Which line an instruction is: the one the sampler gives it (functions/source_line.h: inlined
// code on its caller's line), so that time and FLOPs meet on the user's line; valgrind's line
// subposition (--rprofsim-functions=yes: the innermost inlined location) where libdw cannot say.
//
// A loop's lines are one entry: a loop's time lands where its samples fall (often the increment
// and branch on its `for` line) and its FLOPs on its body's line, two half-lines nobody can
// read. The function's loops are found in its executed machine code (FindLoops: a jump back to
// a lower address closes a loop, as compilers lay loops out; no control-flow graph is built),
// each line goes to the innermost loop most of its executed instructions ran in, and a loop's
// lines are shown as one line range (first..last line in its file: line, line_last) carrying
// its time and its FLOPs. A line in no loop stays alone. Lines, not addresses, join the sampled
// time to the loops: a sampled line goes to the entry that holds it.
#ifndef RPROF_COUNTERS_SIM_LINE_COUNTS_H_
#define RPROF_COUNTERS_SIM_LINE_COUNTS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/metric.h"
#include "counters/sim/callgrind_output.h"
#include "counters/sim/function_counts.h"
#include "counters/sim/sim_counts.h"
#include "functions/function_sampler.h"
#include "functions/source_line.h"

namespace rprof {

// A loop of a function's machine code: the addresses [start, end) from a backward jump's target
// to the end of the jump.
struct LoopRange {
  uint64_t start = 0, end = 0;
  friend bool operator==(const LoopRange&, const LoopRange&) = default;
};

// The loops among the instructions at `addresses` (one object's link-time addresses, those of
// one function): each relative jump among them (JMP, Jcc, LOOP, JRCXZ) whose target is at or
// below it, and not below the lowest address (the target is in the function), closes a loop
// [target, end of the jump); the jumps back to one target are one loop, to the furthest one.
// `code_at(address)` gives the bytes there (empty where they cannot be read: no loop). Ordered
// by start, then end.
std::vector<LoopRange> FindLoops(const std::vector<uint64_t>& addresses,
                                 const std::function<std::span<const uint8_t>(uint64_t)>& code_at);

// The innermost (shortest) of `loops` that holds `address`; nullopt when none does.
std::optional<size_t> InnermostLoop(const std::vector<LoopRange>& loops, uint64_t address);

struct LineSlice {
  std::string file;  // as libdw names it, else as the sim output does (valgrind's directory + file)
  uint32_t line = 0;       // its (first) line
  uint32_t last_line = 0;  // a loop's last line in `file`; == line for one line
  // Every (file, line) whose instructions it holds (a loop's lines, some perhaps in another file).
  std::vector<std::pair<std::string, uint32_t>> lines;
  // Where most of its inlined code's instructions came from ("fmaintrin.h:49"); "" for none.
  std::string inlined_from;
  // The line's sites alone, with their costs and the run's geometry, as FunctionSlice's.
  CallgrindOutput output;
};

// The most source lines (last - first + 1) a loop's entry spans; a longer one's lines stay alone.
inline constexpr uint32_t kMostLoopLines = 32;

// Splits `slice` (a function of `whole`, SplitByFunction) by source line: each site's line from
// `source_lines` (the object's DWARF, libdw; nullptr or no answer: valgrind's), the lines of one
// of `loops` (FindLoops) as one LineSlice, a line in no loop alone. A line goes to the
// innermost loop most of its executed instructions (Ir) ran in; a loop whose lines span more
// than kMostLoopLines in its file leaves its lines alone. Sites without a line are left
// out; *unlined gets their executed instructions (Ir). Empty when no site has a line. Ordered by
// (file, line).
std::vector<LineSlice> SplitByLine(const CallgrindOutput& whole, const FunctionSlice& slice,
                                   SourceLines* source_lines, const std::vector<LoopRange>& loops,
                                   uint64_t* unlined);

// Adds the hot lines of one hot function (its metrics under FunctionRegion(function)): for each
// line (or loop: SplitByLine) SelectHotLines chooses, its sim counts (instructions, flops,
// flops_dp, flops_sp, bytes at each level), a loop's line_last (sim, the last line of its range,
// the file in its note) and, when `samples` is given (the native run was sampled), its
// time_share (clock: the samples on any of its lines) under LineRegion(function, file, line);
// on the function, `hot_lines` (sim): how many, or absent with the reason (no line
// information). `sampled_name`: the function's name in `samples`. False with *err (environment)
// only when SimAnalyzer cannot analyse a line.
[[nodiscard]] bool AddHotLineMetrics(SimAnalyzer* analyzer, const CallgrindOutput& whole,
                                     const FunctionSlice& slice, const std::string& function,
                                     const std::string& sampled_name,
                                     const FunctionSamples* samples, std::vector<Metric>* out,
                                     Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_LINE_COUNTS_H_
