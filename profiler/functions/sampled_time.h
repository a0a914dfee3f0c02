// A hot function's time from the native executions' cpu-clock samples (function_sampler.h):
// its samples x the sampling period per execution, the CPU time it had (never its share of the
// samples x the run's wall time, which a program that sleeps or waits has little of: that
// overstated a function's time, and so understated its rate, by as much as the program was off
// the CPU), with the sample count and the statistical error said. Used by every source alike:
// sim joins its per-function counts to these times by name, and where no source counts per
// function (pmu, or auto without sim) the sampled time is the functions' whole profile
// (AddSampledFunctions), said so.
#ifndef RPROF_FUNCTIONS_SAMPLED_TIME_H_
#define RPROF_FUNCTIONS_SAMPLED_TIME_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/metric.h"
#include "functions/function_sampler.h"
#include "functions/hot_functions.h"

namespace rprof {

// Why a function sampled but not counted has no FLOPs or bytes (and so no placement).
inline constexpr const char* kTimeProfileOnly =
    "no source here counts per function: the time profile alone; --counters sim counts each "
    "function's FLOPs and bytes";

// The largest relative standard error of a share that still makes a function hot, listed with
// its share: about 4 samples.
inline constexpr double kMostRelativeError = 0.5;

// Whether `own` of `total` samples is a share within kMostRelativeError: a function with fewer
// is seen, never hot, and has no time or lines of its own.
bool HasShareOfItsOwn(uint64_t own, uint64_t total);

// Fewer samples of a function than this give its lines no shares: a line with half of them is
// within kMostRelativeError (1/sqrt(n) <= 0.5) only from 4 on. A function with all of a short
// run's 1 or 2 samples is a share of its own (the binomial error of p = 1 is 0), not its lines;
// finding them opened the module's DWARF (libc's debug file: zlib inflating its sections, 30 %
// of `rprof run /bin/true`'s CPU time).
inline constexpr uint64_t kFewestSamplesForLines = 4;

// Whether a function with `own` of `total` samples has its lines looked up and shared out: a
// share of its own (HasShareOfItsOwn) from kFewestSamplesForLines samples on.
bool HasLineShares(uint64_t own, uint64_t total);

// Fewer samples than this are a share and no time: ±18 % (1/√30) and worse would make any rate,
// and any percentage of a roof, a guess. The time_s note then starts "N samples: too few for a
// rate", and the function is not placed (PlaceRegion says the same).
inline constexpr uint64_t kFewestSamplesForRate = 30;

// A program whose sampled CPUs utilized are under this fraction of the threads it had samples
// in (0.5 for one thread) is mostly off the CPU: its run gets one off_cpu_share metric.
inline constexpr double kMostlyOffCpu = 0.5;

// Appends `region`'s time_s and time_share (source clock). time_s is the function's CPU time
// per execution: `own` samples x samples.period_s / samples.executions (at least 1), in
// seconds; a sample of each of two threads is two periods, so it is CPU time summed over
// threads, not wall time (the note says so). time_share is own / samples.total. The note gives
// the count, the error of the time (1/√own) and the binomial standard error of the share, lost
// samples and where kernel code went. A function no sample fell in gets time_s absent, with
// that reason; one with fewer than kFewestSamplesForRate samples gets its share but no time
// ("N samples: too few for a rate"). samples.total must be > 0.
// The first call for a program mostly off the CPU (kMostlyOffCpu: its CPU time, from `out`'s
// run-level cpu_time_s and time_s where both are there, else sampled, over `native_time_s`, the
// run's wall time per execution) also appends the run-level off_cpu_share (source clock,
// region ""), once per `out`: the fraction of its threads' wall time off the CPU, its note
// giving the CPUs utilized.
// The samples that fell in function `name` of module `object` (a path, or its file name): the
// per-module count where the sampler kept one, else the function's by name.
uint64_t SamplesOf(const FunctionSamples& samples, std::string_view object,
                   const std::string& name);

void AddSampledTime(const FunctionSamples& samples, uint64_t own, double native_time_s,
                    const std::string& region, std::vector<Metric>* out);

// The hot functions of the samples alone, where no source counted per function: the top
// `rule.top` by sampled time and every one above `rule.min_share`, each as a region
// (FunctionRegion) with its time_s and time_share (AddSampledTime); their notes say that nothing
// counted their FLOPs or bytes (kTimeProfileOnly). A function with too few samples for even a
// share (kMostRelativeError) is not hot. Each hot function gets its hot lines by time
// (AddSampledLines). Code outside any function of the program ("[kernel]", "[unknown]",
// "[vdso]") is no function: left out, its samples still in the total. A program mostly off the
// CPU gets off_cpu_share, as AddSampledTime gives it. Nothing when nothing was sampled or
// native_time_s is not positive.
void AddSampledFunctions(const FunctionSamples& samples, double native_time_s,
                         const HotFunctionRule& rule, std::vector<Metric>* out);

// A function's sampled source lines (FunctionSamples::by_line), by file and line, and why it has
// none where the sampler said (line_why_not; "" otherwise).
struct SampledLine {
  std::string file;
  uint32_t line = 0;
  uint64_t samples = 0;
};
std::vector<SampledLine> SampledLinesOf(const FunctionSamples& samples,
                                        const std::string& function);
std::string WhyNoSampledLines(const FunctionSamples& samples, const std::string& function);

// What a line's time_share note says: `own` of the run's samples fell on it.
std::string LineSamplesNote(uint64_t own, uint64_t total);

// A time-only hot function's hottest source lines (HotLineRule's top by sampled time), where no
// source counts per line: each line's time_share (source clock) under its LineRegion, and the
// function's hot_lines count (source clock), its note saying that the lines have no FLOPs or
// bytes. Without any sampled line (no line table in its module) hot_lines is absent, with
// line_why_not's reason. `shown_as` is the function's name in the run (UniqueFunctionName),
// `function` its samples' name. samples.total must be > 0.
void AddSampledLines(const FunctionSamples& samples, const std::string& function,
                     const std::string& shown_as, std::vector<Metric>* out);

// Whether `name` (a FunctionSamples key) is a function of the program, not kernel code or an
// unnamed mapping ("[kernel]", "[vdso]", "[unknown]").
bool IsSampledFunction(const std::string& name);

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_SAMPLED_TIME_H_
