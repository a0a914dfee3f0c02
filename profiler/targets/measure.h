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

// A source that could not give its values after the target ran (valgrind failed, counters
// could not be read): the run is stored without them, its note says why.
struct SourceFailure {
  Source source;
  Error error;
};

// Measures `target` with `sources` and fills run's target, times, status, metrics and
// `sources` (those that gave values). Once the target has run, the run is always to be stored
// (true): a target that fails, crashes or is interrupted is an outcome with its status; a
// source that fails is in *failed_sources; a signal during the sim step leaves the run
// interrupted, its sim counts absent. False with *err means nothing ran, nothing should be
// stored: a source could not be prepared, the target could not start, or rprof was interrupted
// before it started.
bool Measure(Target& target, const std::vector<ChosenSource>& sources,
             const CounterRequest& request, RunRecord* run,
             std::vector<SourceFailure>* failed_sources, Error* err);

}  // namespace rprof

#endif  // RPROF_TARGETS_MEASURE_H_
