// The pmu counter source: hardware and software events through PAPI, counted around each timed
// repetition of a kernel, or on a whole program with perf_event_open (everything it starts
// included), with metric groups turning the counts into canonical metrics.
#ifndef RPROF_COUNTERS_PMU_SOURCE_H_
#define RPROF_COUNTERS_PMU_SOURCE_H_

#include "counters/counter_source.h"

namespace rprof {

const CounterSource& PmuCounterSource();

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_SOURCE_H_
