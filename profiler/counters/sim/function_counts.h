// A program's sim counts split by the function that executed each instruction (the fn= of
// callgrind's format, which rprofsim writes with --rprofsim-functions=yes): one
// CallgrindOutput per function, which SimAnalyzer turns into the function's own SimCounts as it
// does the whole run's. Inlined code is its caller's. Each site's function is named by
// FunctionNames (functions/function_names.h), as the sampler names it: the symbol in the
// object's symbol table or separate debug file, else valgrind's, else its unwind-table entry
// ("module+0xstart").
#ifndef RPROF_COUNTERS_SIM_FUNCTION_COUNTS_H_
#define RPROF_COUNTERS_SIM_FUNCTION_COUNTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "counters/sim/callgrind_output.h"

namespace rprof {

struct FunctionSlice {
  std::string name;    // FunctionNames' name: the symbol, else "module+0xstart"
  bool named = false;  // a symbol named it
  std::string object;  // its object file, as valgrind named it
  // Its source: the file most of its executed instructions came from, and the first and last
  // line executed there; "" and 0 without line information.
  std::string file;
  uint32_t first_line = 0, last_line = 0;
  // Its sites alone, with their costs and the run's geometry (not the run's function and file
  // names, nor each site's source: what SimAnalyzer needs, no more).
  CallgrindOutput output;
  // Each of output.sites' source, indexes into the whole output's files (the function and file
  // names stay there): what SplitByLine (line_counts.h) splits the function by.
  std::vector<SiteSource> site_sources;
};

// Splits `output` by (object, function). Empty when the output names no function (rprofsim
// without --rprofsim-functions=yes). Sites that execute nothing (cache events alone) stay with
// their function.
std::vector<FunctionSlice> SplitByFunction(const CallgrindOutput& output);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_FUNCTION_COUNTS_H_
