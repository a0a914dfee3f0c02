// Whether a sim replay ran the code the timed run ran. A library that chooses its code by the
// CPU's features (OpenBLAS's kernels, glibc's string functions, NumPy's loops) sees valgrind's
// CPUID, which hides AVX-512 and may name another model: natively it runs sgemm_kernel_SKYLAKEX
// (on an AMD Zen 3 guest, dgemm_kernel_ZEN), under valgrind sgemm_kernel_HASWELL, and sim's
// counts describe the other code. The native run's sampled
// functions tell: one hot natively that the replay never executed is that other code's
// counterpart.
#ifndef RPROF_FUNCTIONS_REPLAY_COVERAGE_H_
#define RPROF_FUNCTIONS_REPLAY_COVERAGE_H_

#include <string>
#include <vector>

#include "core/metric.h"
#include "functions/function_sampler.h"

namespace rprof {

// The metric that says so (source sim, whole run or a benchmark's timed loop): the share of the
// native samples in hot functions the replay never ran; its note names them. Absent when the
// replay ran every natively hot function, or nothing was sampled.
inline constexpr const char* kReplayMissingShare = "replay_missing_share";

// Hot natively: at least this share of the samples, and enough samples that the share is no
// accident (a binomial share from 8 samples is within about ±35 % of itself).
inline constexpr double kNativelyHotShare = 0.10;
inline constexpr uint64_t kNativelyHotSamples = 8;

struct MissedFunction {
  std::string name;
  double share = 0;  // of the native samples
};

// The functions hot in `samples` (kNativelyHotShare, kNativelyHotSamples; code outside any
// function, "[kernel]" and the like, is none) that are not among `replayed` (the names of the
// functions the replay executed), hottest first.
std::vector<MissedFunction> NativelyHotNotReplayed(const FunctionSamples& samples,
                                                   const std::vector<std::string>& replayed);

// The kReplayMissingShare metric for `missed` (non-empty), for `region` ("" for the whole run).
Metric ReplayMissingMetric(const std::vector<MissedFunction>& missed, const std::string& region);

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_REPLAY_COVERAGE_H_
