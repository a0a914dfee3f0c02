// The one measuring driver: any target, any set of counter sources. It prepares the sources,
// lets the target run natively with the live ones, then finishes every source in the order
// their values exist (static, live, then replayed) and derives the rates.
#ifndef RPROF_TARGETS_MEASURE_H_
#define RPROF_TARGETS_MEASURE_H_

#include <vector>

#include "core/error.h"
#include "core/run.h"
#include "counters/counter_source.h"
#include "counters/source_registry.h"
#include "targets/target.h"

namespace rprof {

// Measures `target` with `sources` and fills run's target, times, status, metrics and
// `sources` (those that gave values). A target that fails, crashes or is interrupted is a
// stored outcome (true, with its status); false with *err means nothing should be stored: a
// source could not be prepared, the target could not start, or a chosen source could not count.
bool Measure(Target& target, const std::vector<ChosenSource>& sources,
             const CounterRequest& request, RunRecord* run, Error* err);

}  // namespace rprof

#endif  // RPROF_TARGETS_MEASURE_H_
