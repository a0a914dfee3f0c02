// The names --events takes: PAPI presets (PAPI_TOT_INS), native events as libpfm4 names them
// (perf::TASK-CLOCK, icx::L1D:REPLACEMENT), and perf's own names for the common events
// (`perf stat -e cycles,instructions`), which stand for what rprof counts. A name that no table
// knows is a typo, refused with the closest known name; whether a known event can be counted on
// this machine is decided only by adding it (the pmu source).
#ifndef RPROF_COUNTERS_EVENT_NAMES_H_
#define RPROF_COUNTERS_EVENT_NAMES_H_

#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

struct PerfEventName {
  const char* perf;   // as `perf list` writes it: "cycles", "L1-dcache-load-misses"
  const char* event;  // what rprof counts for it, and the metric it is stored as
};

// perf's names, in one table (counters/event_names.cc).
const std::vector<PerfEventName>& PerfEventNames();

// The event rprof counts for `name`: the one a perf name stands for (matched without regard to
// case, as perf does), else `name` itself.
std::string EventForName(const std::string& name);

// kUsage ("NAME: why", with a "did you mean") for a name that cannot be an event: a PAPI_ name PAPI
// does not define, a pmu::EVENT[:UMASK] missing from libpfm4's table, a bare name that is neither a
// perf name nor an event libpfm4 finds. Names of other PAPI components (with ":::"), and every name
// when rprof is built without PAPI and libpfm4, pass: only opening them can tell.
bool CheckEventName(const std::string& name, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_EVENT_NAMES_H_
