// Which of a program's functions get a roofline point of their own, and what they are called
// there. A function's metrics travel as a region's do (Metric::region), under the name
// FunctionRegion() gives it, so that placement, storage, tables and plots treat a hot function
// as they treat a marker region.
#ifndef RPROF_FUNCTIONS_HOT_FUNCTIONS_H_
#define RPROF_FUNCTIONS_HOT_FUNCTIONS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/metric.h"

namespace rprof {

// A function's weight in the run, as far as it is measured.
struct FunctionCandidate {
  std::string name;
  double instructions = 0;           // executed instructions (sim)
  double flops = 0;                  // FLOPs (sim)
  std::optional<double> time_share;  // its share of the run's time, 0..1 (sampling)
};

// --functions N: the N heaviest by time and the N heaviest by FLOPs, every function above
// `min_share` of the time, and, where time was sampled, those of the N heaviest by executed
// instructions above `min_share` of them. top 0: none (--functions off).
struct HotFunctionRule {
  int top = 10;
  double min_share = 0.01;
};

// The chosen candidates' indexes, heaviest first, each once. A function's "time" is its
// sampled time share where any candidate has one; without sampling its share of the executed
// instructions stands for it (the replay's measure of work). Functions with neither
// instructions nor time are never chosen.
std::vector<size_t> SelectHotFunctions(const std::vector<FunctionCandidate>& candidates,
                                       const HotFunctionRule& rule);

// The order hot functions are listed in wherever a run shows them (text report, JSON, the
// roofline's list of regions): heaviest first, by sampled time (time_share, source clock) where
// any of them has one, else by what sim counted (instructions, source sim), ties by name, as
// SelectHotFunctions chose them. `metrics`: a run's metrics, every region's; the result holds
// each function region (FunctionRegion) once, and no other region.
std::vector<std::string> FunctionRegionsHeaviestFirst(const std::vector<Metric>& metrics);

// The region name a function's metrics carry: "fn:" + its name.
inline constexpr std::string_view kFunctionRegionPrefix = "fn:";
std::string FunctionRegion(std::string_view function);
// Whether a Metric::region is a function's, and which.
bool IsFunctionRegion(std::string_view region);
std::string_view FunctionOfRegion(std::string_view region);

// How a function's name is written (FunctionNames, function_names.h, decides which symbol or
// start it is): its symbol; code without one by the module and the start of the code it belongs
// to, "libfoo.so+0x1a2b" (`start`: the start
// of its unwind-table entry, else the lowest address executed there), since an address alone
// says nothing without its module. *named: whether a symbol named it. Valgrind says "???" for
// no symbol; callgrind names such code "0x000000000040113a".
std::string FunctionDisplayName(std::string_view symbol, std::string_view object, uint64_t start,
                                bool* named);

// A hot function's name in a run, one function each: `name`, or "name (libc.so.6)" where an
// earlier function in `*used` has that name (strcmp in ld.so and in libc); added to *used.
std::string UniqueFunctionName(const std::string& name, std::string_view object,
                               std::vector<std::string>* used);

// Whether `symbol` is a real name (not empty, "???", or callgrind's "0x…" address stand-in).
bool IsSymbolName(std::string_view symbol);

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_HOT_FUNCTIONS_H_
