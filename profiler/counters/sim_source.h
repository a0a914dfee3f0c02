// The sim counter source as rprof uses it: run a kernel (through rprof-sim-runner) or a whole
// program under valgrind, with rprof's own tool rprofsim (a write-back hierarchy of every cache
// level) where it was built, else callgrind with its cache simulator; analyse the output (the
// same format from both), and return
// canonical metrics with source sim. Deterministic: the same binary gives the same counts.
#ifndef RPROF_COUNTERS_SIM_SOURCE_H_
#define RPROF_COUNTERS_SIM_SOURCE_H_

#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/metric.h"
#include "counters/counter_source.h"
#include "counters/sim/replay_cost.h"
#include "counters/sim_time_fit.h"
#include "functions/function_sampler.h"
#include "machine/topology.h"

namespace rprof {

struct SimRequest {
  std::vector<std::string> argv;  // the program, or the runner and its arguments
  // Collection on from the start (a whole program) or only where the program toggles it (the
  // kernel runner, marker regions).
  bool collect_from_start = false;
  // Cache geometry to simulate, "size,associativity,line" in bytes; "" lets valgrind read the
  // CPU's (which a virtual machine may report badly).
  std::string d1, ll;
  // The same hierarchy for rprofsim, every data level from L1D down: "size,ways,line,policy"
  // (SimHierarchy), and its prefetch model ("" or "none": off; "next-line", "stride").
  std::vector<std::string> levels;
  std::string prefetch;
  double timeout_s = 0;
  // A program using the marker API: also count each region on its own (with RPROF_MARKER_SIM=1
  // the marker library sends rprofsim its region requests, or has callgrind dump its counts at
  // region boundaries).
  bool per_region = false;
  // The replay prints nothing: CallgrindOptions::discard_output.
  bool discard_output = false;
  // Also count each hot function on its own (HotFunctionRule::top, functions/hot_functions.h):
  // its metrics carry the region FunctionRegion(name). 0: no function is counted.
  int functions = 0;
  // The marker region whose hot functions are counted (a Google Benchmark instance's timed
  // loop, per_region set): "" counts them over the whole run.
  std::string functions_region;
  // The native executions' cpu-clock samples per function (function_sampler.h) and their time
  // per execution, which the samples share out: each counted function's time_s, and the hot
  // functions chosen by time. nullptr: not sampled.
  const FunctionSamples* samples = nullptr;
  double native_time_s = 0;
};

struct SimResult {
  std::vector<Metric> metrics;  // totals of the collected part, source sim; per marker region too
  double wall_s = 0;            // how long valgrind took
  int exit_code = 0;            // the program's (128 + the signal's number when one ended it)
  int term_signal = 0;          // the signal that ended the program, 0 when it exited
  std::string log_tail;         // the end of valgrind's log when the program did not exit 0
  std::string valgrind_error;   // valgrind's own fatal complaint in its log; "" when none
  std::string output_tail;      // the end of the program's standard error (a few hundred bytes)
  std::string fp_mix;           // "scalar code: 100 % of FP instructions are scalar"
};

// Whether sim can run here; when not, the cause and the package to install.
Availability SimAvailability();

// Why a replay's counts are not the program's: it exited non-zero, a signal ended it, or
// valgrind itself failed; with the end of its output. "" when it ran to a clean end.
std::string ReplayFailure(const SimResult& result);

// Runs the request. kEnvironment when valgrind is missing, stops on an instruction it cannot
// execute (AVX-512: the message explains the AVX2 build), or its output cannot be parsed (the
// error names the line).
bool RunSim(const SimRequest& request, SimResult* result, Error* err);

// The runner program for kernels: next to the rprof binary.
std::string SimRunnerPath();

// valgrind's --D1 and --LL values for this machine's L1 data cache and last-level cache: the
// sizes given (sysfs's where 0), with sysfs's line sizes and associativities (valgrind itself
// trusts cpuid, which a virtual machine may fill badly). Sizes are rounded down where needed so
// the set count is a power of two, as valgrind requires.
void SimGeometry(const CacheSizes& sizes, std::string* d1, std::string* ll);

// rprofsim's --cache values for this machine: every data cache level sysfs lists, L1D's and the
// last level's size replaced by `sizes` where given (a measured size to the nearest whole set
// count, a reported one rounded down), with the vendor's inclusion policy: Intel's L3 inclusive
// up to Skylake client and Broadwell server, non-inclusive on later models and Skylake-SP on;
// AMD's L3 a victim cache; L2 non-inclusive. Empty when sysfs lists no data cache.
std::vector<std::string> SimHierarchy(const CacheSizes& sizes);

// Which valgrind tool RunSim uses: "rprofsim (PATH)" when rprof's own tool is there, else
// "callgrind (fallback: WHY)"; *simtool says which.
std::string SimBackend(bool* simtool);
// The simulator the sim source runs here, by name: "rprofsim" or "callgrind" ("" in a build
// without the sim source). Calibrations are kept per simulator: one's verdicts are not the
// other's.
std::string SimulatorName();

// How --counters chooses the sim source.
enum class SimMode { kNever, kAuto, kAlways };

// What one replay under valgrind will do, as far as it is known before it runs.
struct SimWork {
  double native_s = 0;  // native seconds of the same work (set-up, warm-up and counted call)
  double flops = 0;     // the model's FLOPs over the replay; 0 when unknown
  double bytes = 0;     // the model's compulsory bytes over the replay; 0 when unknown
  // Without a model: the slowdown of the code the native run was sampled on, from its decoded
  // instructions (counters/sim/replay_cost.h), and the CPU seconds of native_s it applies to
  // (the rest of native_s was off the CPU, which valgrind waits as long); none: not sampled,
  // or too little of it decoded.
  std::optional<ReplaySlowdown> code;
  double native_cpu_s = 0;
  // The native execution's instructions where a PMU counted them: with `code`, the replay is
  // expected from them at the sampled mix's cost per instruction.
  std::optional<double> native_instructions;
};

// The reference cost of `work` under valgrind [s]: what callgrind with its cache simulator took
// on this project's Xeon VM, its start-up plus a cost per model FLOP and per compulsory byte
// fitted on the built-in kernels (issue 13: copy, triad, matmul-naive within 1.6x there), or not
// less than the native time at a low slowdown; without a model, the sampled code's slowdown
// (work.code: rprofsim's own cost per instruction) or else the native time at callgrind's
// typical slowdown. Not this machine's time: the expectation when no replay is stored here yet
// (counters/sim_time_fit.h).
double EstimateSimSeconds(const SimWork& work);

// The replay's work, in the same reference seconds, from the model alone where there is one
// (start-up, 25 ns per model FLOP, 5 ns per compulsory byte), else from the sampled code's
// slowdown, else from the native time (50x): the same for every replay of the same kernel and
// size, whatever the load, so that what the stored replays took per reference second
// (SimTimeFit) carries over to the next one.
double SimWorkSeconds(const SimWork& work);

// What EstimateSimSeconds rests on, for SimTimeFit::Expect: "" (the reference cost) with a model
// or without a sampled code's slowdown, else that slowdown in words.
SimPrior SimWorkPrior(const SimWork& work);

// Whether to run sim: kAlways yes (when available), kNever no; kAuto when this machine cannot
// count FLOPs in hardware, valgrind is here, and `expected_s` (SimTimeFit::Expect) fits
// `budget_s`. *err (environment) says why not, and how to get sim counts anyway: `what_fits` ("n <=
// 256 would fit"; "" when no smaller size is known to fit) is said when over budget.
[[nodiscard]] bool ShouldRunSim(SimMode mode, double expected_s, double budget_s,
                                const std::string& what_fits, Error* err);

// For a kernel that does not fit `budget_s`: "n <= 250 would fit", its first parameter (its
// size: n, m, rows, seq) at the largest value whose replay `fit` expects within three quarters
// of the budget (room for a slower native time next run), the other parameters as given, rounded
// down to two significant digits; "" when even its smallest value does not fit, or the model does
// not shrink with it. `native_s`: the native seconds of the replay at the kernel's own arguments,
// scaled with the model's work.
std::string KernelSizeThatFits(const CountedTarget& kernel, double native_s, double budget_s,
                               const SimTimeFit& fit = SimTimeFit());

// What sim cannot replay on a machine of `topology`, in one sentence, or "" when nothing: on an
// AVX-512 CPU, valgrind 3.19 executes no AVX-512 and hides it from CPUID, so sim refuses native
// builds that use it and libraries that dispatch at run time run other code under it.
std::string SimIsaLimit(const Topology& topology);

// The sim counter source: the target replayed under valgrind after its native runs (kernels
// through rprof-sim-runner, one warm-up and one counted call of their AVX2 build; programs whole,
// per marker region too).
const CounterSource& SimCounterSource();

// Counts one call of the kernel under valgrind (after one warm-up call): the sim metrics of one
// run() call; *wall_s, when given, how long valgrind took. kEnvironment when sim cannot run or
// the runner fails.
bool SimulateKernel(const CountedTarget& kernel, const CacheSizes& caches, std::vector<Metric>* out,
                    Error* err, double* wall_s = nullptr);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_SOURCE_H_
