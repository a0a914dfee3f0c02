// Work a pmu marker region did not count. Each thread's counters count that thread only, so the
// work other threads do while a region is open (OpenMP's team, a BLAS pool working for the one
// thread that opened it) is missing from the region's pmu counts; the marker library measures
// its CPU time (cpu_elsewhere_s, from the format's span records). Where it is a real share of the
// region's own time, the run gets a note saying so, and how to count it (sim counts every thread).
#ifndef RPROF_CALIBRATE_REGION_ELSEWHERE_H_
#define RPROF_CALIBRATE_REGION_ELSEWHERE_H_

#include <vector>

#include "core/run.h"

namespace rprof {

// Below this share of the region's own thread time (and kElsewhereFloorSeconds), other threads'
// CPU time is the bookkeeping of a runtime (a pool thread waking to spin), not missing work.
inline constexpr double kElsewhereShare = 0.05;
inline constexpr double kElsewhereFloorSeconds = 0.001;

// One `untrusted` note per region whose other threads' CPU time while it was open is at least
// kElsewhereShare of its thread_time_s, naming both; empty when none is.
std::vector<TrustNote> RegionElsewhereNotes(const RunRecord& run);

}  // namespace rprof

#endif  // RPROF_CALIBRATE_REGION_ELSEWHERE_H_
