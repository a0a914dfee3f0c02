// A hot function's sim counts split by source line (the line subposition rprofsim writes with
// --rprofsim-functions=yes, from valgrind's debug-info reader), each line analysed as the
// function is (SimAnalyzer): its FLOPs, instructions and bytes at every level, so its bytes per
// FLOP. Beside them each line's share of the sampled time (FunctionSamples::by_line), and the
// lines worth showing (SelectHotLines) stored as regions LineRegion(function, file, line).
#ifndef RPROF_COUNTERS_SIM_LINE_COUNTS_H_
#define RPROF_COUNTERS_SIM_LINE_COUNTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/metric.h"
#include "counters/sim/callgrind_output.h"
#include "counters/sim/function_counts.h"
#include "counters/sim/sim_counts.h"
#include "functions/function_sampler.h"

namespace rprof {

struct LineSlice {
  std::string file;  // as the sim output names it (valgrind: the directory, then the file)
  uint32_t line = 0;
  // The line's sites alone, with their costs and the run's geometry, as FunctionSlice's.
  CallgrindOutput output;
};

// Splits `slice` (a function of `whole`, SplitByFunction) by (file, line). Sites without a line
// are left out; *unlined gets their executed instructions (Ir). Empty when no site has a line.
std::vector<LineSlice> SplitByLine(const CallgrindOutput& whole, const FunctionSlice& slice,
                                   uint64_t* unlined);

// Adds the hot lines of one hot function (its metrics under FunctionRegion(function)): for each
// line SelectHotLines chooses, its sim counts (instructions, flops, flops_dp, flops_sp, bytes at
// each level) and, when `samples` is given (the native run was sampled), its time_share (clock)
// under LineRegion(function, file, line); on the function, `hot_lines` (sim): how many, or
// absent with the reason (no line information). `sampled_name`: the function's name in
// `samples`. False with *why only when SimAnalyzer cannot analyse a line.
bool AddHotLineMetrics(SimAnalyzer* analyzer, const CallgrindOutput& whole,
                       const FunctionSlice& slice, const std::string& function,
                       const std::string& sampled_name, const FunctionSamples* samples,
                       std::vector<Metric>* out, std::string* why);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_LINE_COUNTS_H_
