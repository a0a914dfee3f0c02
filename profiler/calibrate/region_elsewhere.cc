#include "calibrate/region_elsewhere.h"

#include <cstdio>
#include <string>

#include "core/metric.h"

namespace rprof {

std::vector<TrustNote> RegionElsewhereNotes(const RunRecord& run) {
  std::vector<TrustNote> notes;
  for (const Metric& elsewhere : run.metrics) {
    if (elsewhere.name != "cpu_elsewhere_s" || !elsewhere.value) continue;
    // A region's against its threads' time inside; a benchmark's timed loop (the run's own,
    // per iteration) against the loop's time per iteration on all its threads.
    const bool region = !elsewhere.region.empty();
    const Metric* inside = FindMetric(run.metrics, region ? "thread_time_s" : "time_s",
                                      Source::kClock, elsewhere.region);
    if (inside == nullptr || !inside->value) continue;
    double own = *inside->value;
    if (!region) {
      const Metric* threads = FindMetric(run.metrics, "threads", Source::kClock);
      if (threads != nullptr && threads->value && *threads->value > 1) own *= *threads->value;
    }
    const double other = *elsewhere.value;
    // The floor is on the region's total; a loop's values are per iteration.
    if ((region && other < kElsewhereFloorSeconds) || other < kElsewhereShare * own) continue;
    char detail[512];
    std::snprintf(detail, sizeof detail,
                  "%s%s%s: other threads of the process used %.3g s of CPU while it %s (%.0f %% "
                  "of the %.3g s its own threads spent in it); their work is not in its pmu "
                  "counts, which count each entering thread only — --counters sim counts every "
                  "thread's",
                  region ? "region '" : "the timed loop", region ? elsewhere.region.c_str() : "",
                  region ? "'" : "", other, region ? "was open" : "ran, per iteration",
                  100 * other / own, own);
    notes.push_back({"untrusted", detail});
  }
  return notes;
}

}  // namespace rprof
