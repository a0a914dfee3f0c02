// The cache sizes the sim source simulates, for `rprof run` and `rprof calibrate` alike: by
// default the effective sizes this machine's newest profile measured (a virtual machine's sysfs
// may report the host's whole cache: 480 MiB of L3 for two vCPUs), else, or with
// --sim-cache reported, what sysfs reports.
#ifndef RPROF_COUNTERS_SIM_CACHE_SIZES_H_
#define RPROF_COUNTERS_SIM_CACHE_SIZES_H_

#include <string>

#include "core/error.h"
#include "counters/counter_source.h"
#include "store/run_store.h"

namespace rprof {

// `choice`: "measured" or "reported" (the caller checks it). *out says where the sizes came
// from (CacheSizes::origin). False with *err only when the profile cannot be read.
bool ChooseSimCacheSizes(RunStore* store, const std::string& fingerprint, const std::string& choice,
                         CacheSizes* out, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_CACHE_SIZES_H_
