#include "functions/replay_coverage.h"

#include <algorithm>

#include "core/text.h"
#include "functions/sampled_time.h"

namespace rprof {

std::vector<MissedFunction> NativelyHotNotReplayed(const FunctionSamples& samples,
                                                   const std::vector<std::string>& replayed) {
  std::vector<MissedFunction> missed;
  if (samples.total == 0) return missed;
  for (const auto& [name, count] : samples.by_function) {
    double share = static_cast<double>(count) / static_cast<double>(samples.total);
    if (!IsSampledFunction(name) || count < kNativelyHotSamples || share < kNativelyHotShare)
      continue;
    if (std::find(replayed.begin(), replayed.end(), name) == replayed.end())
      missed.push_back({name, share});
  }
  std::sort(missed.begin(), missed.end(),
            [](const MissedFunction& a, const MissedFunction& b) { return a.share > b.share; });
  return missed;
}

Metric ReplayMissingMetric(const std::vector<MissedFunction>& missed, const std::string& region) {
  double share = 0;
  std::string names;
  for (const MissedFunction& f : missed) {
    share += f.share;
    names += (names.empty() ? "" : ", ") + f.name +
             Format(" (%.0f %% of the timed run's samples)", 100 * f.share);
  }
  return {kReplayMissingShare,
          share,
          "1",
          Source::kSim,
          region,
          "the replay under valgrind never ran what was hot in the timed run: " + names +
              "; a library that picks its code by the CPU it finds (OpenBLAS, glibc, NumPy) "
              "sees valgrind's CPUID, not this CPU's (no AVX-512, and maybe another model), and "
              "runs other code: sim's counts, vector widths included, are of that code"};
}

}  // namespace rprof
