// What a measurement takes from the database before it starts: the cache sizes the sim source
// simulates and the fit of its replay times, read here so that counters/ never opens the
// store (the layers: counters below store, the pipeline above both).
#ifndef RPROF_PIPELINE_SIM_INPUTS_H_
#define RPROF_PIPELINE_SIM_INPUTS_H_

#include <string>

#include "core/error.h"
#include "counters/counter_source.h"
#include "counters/sim_cache_sizes.h"
#include "counters/sim_time_fit.h"
#include "store/run_store.h"

namespace rprof {

// `choice` (ParseSimCacheChoice's). Measured: the sizes of this machine's (by fingerprint)
// newest profile (counters/sim_cache_sizes.h), sysfs's without one; reported: sysfs's; the
// sizes it gives on top of the measured ones. *out says where the sizes came from
// (CacheSizes::origin). False with *err only when the profile cannot be read.
bool ChooseSimCacheSizes(RunStore* store, const std::string& fingerprint,
                         const SimCacheChoice& choice, CacheSizes* out, Error* err);

// The query LoadSimTimeFit reads the replays with (?1 fingerprint, ?2 simulator, ?3 metric,
// ?4 how many, ?5 and ?6 the two sources): every `rprof run` asks it, so it finds the metrics by
// name (index metrics_by_name), never by scanning all of them (30 ms at 278,000 metrics).
extern const char kSimReplaysSql[];

// This machine's (by fingerprint) stored replays under `simulator`, fitted. kEnvironment when
// the database cannot be read.
bool LoadSimTimeFit(RunStore* store, const std::string& fingerprint, const std::string& simulator,
                    SimTimeFit* out, Error* err);

}  // namespace rprof

#endif  // RPROF_PIPELINE_SIM_INPUTS_H_
