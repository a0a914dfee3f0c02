#include "calibrate/region_elsewhere.h"

#include <cstdio>
#include <string>

#include "core/metric.h"

namespace rprof {

std::vector<TrustNote> RegionElsewhereNotes(const RunRecord& run) {
  std::vector<TrustNote> notes;
  for (const Metric& elsewhere : run.metrics) {
    if (elsewhere.name != "cpu_elsewhere_s" || elsewhere.region.empty() || !elsewhere.value)
      continue;
    const Metric* inside =
        FindMetric(run.metrics, "thread_time_s", Source::kClock, elsewhere.region);
    if (inside == nullptr || !inside->value) continue;
    const double other = *elsewhere.value, own = *inside->value;
    if (other < kElsewhereFloorSeconds || other < kElsewhereShare * own) continue;
    char detail[512];
    std::snprintf(detail, sizeof detail,
                  "region '%s': other threads of the process used %.3g s of CPU while it was "
                  "open (%.0f %% of the %.3g s its own threads spent inside); their work is not "
                  "in its pmu counts, which count each entering thread only — --counters sim "
                  "counts every thread's",
                  elsewhere.region.c_str(), other, 100 * other / own, own);
    notes.push_back({"untrusted", detail});
  }
  return notes;
}

}  // namespace rprof
