// rprof run of a Google Benchmark binary: every benchmark instance it holds (the user's filter
// applied) measured as its own run of kind `benchmark`, all of them tagged with one invocation
// uid, each placed and stored whole before the next starts, so that a crash midway leaves the
// finished runs and the crashed one stored.
#ifndef RPROF_CLI_RUN_BENCHMARKS_H_
#define RPROF_CLI_RUN_BENCHMARKS_H_

#include <string>
#include <vector>

#include "core/error.h"
#include "core/run.h"
#include "counters/source_registry.h"
#include "pipeline/run_session.h"
#include "report/output_format.h"

namespace rprof {

struct BenchmarkRunPlan {
  std::string path;               // the file executed
  std::vector<std::string> argv;  // argv[0] as typed, then the program's arguments
  double timeout_s = 0;
  std::string output;  // -o FILE; "" for standard error
  OutputFormat format = OutputFormat::kTable;
  bool quiet = false;
  // Each benchmark's whole report (-v); else, in the text for people, one screen: the one
  // benchmark's summary, or one line per benchmark, as Google Benchmark's own table has.
  bool verbose = false;
};

// `base`: the machine, tags and CPU list every run gets; each instance is measured and its run
// ended through `session` (placed, its trust notes with --group's, stored). kTargetFailed once all
// are stored when one of them failed or crashed.
bool RunBenchmarks(const RunSession& session, const BenchmarkRunPlan& plan,
                   const std::vector<ChosenSource>& sources, const CounterRequest& request,
                   const RunRecord& base, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_RUN_BENCHMARKS_H_
