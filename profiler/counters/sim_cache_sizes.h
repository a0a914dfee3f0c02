// The cache hierarchy the sim source simulates, for `rprof run` and `rprof calibrate` alike.
// Deterministic by default: the size each level of this machine's newest profile was given
// (level_sizes.h: the reported size unless a sound, repeated measurement replaced it, or the
// reported one is impossible, as a VM's 480 MiB L3 for two vCPUs), never one profile's raw
// effective size; with --sim-cache reported, what sysfs reports.
#ifndef RPROF_COUNTERS_SIM_CACHE_SIZES_H_
#define RPROF_COUNTERS_SIM_CACHE_SIZES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/run.h"
#include "counters/counter_source.h"
#include "machine/machine_profile.h"
#include "machine/topology.h"

namespace rprof {

// The sizes of `profile` (this machine's newest, stored as `profile_id`) that a sound measurement
// gave (level_sizes.h), into *out, which says where they came from (CacheSizes::origin). The
// caller reads the profile (pipeline/sim_inputs.h): counters never open the database.
void SimCacheSizesFromProfile(const MachineProfile& profile, int64_t profile_id, CacheSizes* out);

// The inclusion policy of cache level `level` (2, 3, ...) relative to the levels above it on a
// CPU of `topology` (cache_sim.h's policies): "victim" (AMD's and Hygon's L3), "inclusive"
// (Intel's L3 up to Skylake client and Broadwell server), "non-inclusive" (Intel's later L3s
// and Skylake-SP on; every L2).
std::string CacheInclusion(const Topology& topology, int level);

// The hierarchy rprofsim simulates on a machine whose data caches are `caches` (sysfs's, L1D
// first; at most 4 levels): L1D's, L2's and the last level's size replaced by `sizes` where given
// (a measured size to the nearest whole set count, a reported one rounded down: never more cache
// than the hardware says), sysfs's ways and line (8 and 16 ways, 64 B where it says none), and
// the vendor's inclusion. What the run stores (RunRecord::sim_caches) and SimHierarchy passes.
std::vector<SimCacheRecord> SimCacheGeometry(const Topology& topology, const CacheSizes& sizes);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_CACHE_SIZES_H_
