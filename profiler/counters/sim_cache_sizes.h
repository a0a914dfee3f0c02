// The cache hierarchy the sim source simulates, for `rprof run` and `rprof calibrate` alike.
// Deterministic by default: the size each level of this machine's newest profile was given
// (level_sizes.h: the reported size unless a sound, repeated measurement replaced it, or the
// reported one is impossible, as a VM's 480 MiB L3 for two vCPUs), never one profile's raw
// effective size; with --sim-cache reported, what sysfs reports; with --sim-cache l3=32M (and
// l1=, l2=), the sizes the user gave, the levels not named as measured.
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

// What --sim-cache asked for. Sizes given override what `base` chooses, level by level.
struct SimCacheChoice {
  std::string base = "measured";  // "measured" or "reported"
  uint64_t l1d_bytes = 0;         // l1=: the first-level data cache; 0: not given
  uint64_t l2_bytes = 0;          // l2=: a level 2 above the last level; 0: not given
  uint64_t llc_bytes = 0;         // l3=: the last level, whatever its number; 0: not given
  std::string given;              // the sizes as the user wrote them ("l3=32M"); "": none

  bool GivesSizes() const { return l1d_bytes > 0 || l2_bytes > 0 || llc_bytes > 0; }
};

// Parses --sim-cache's value into *out:
//   measured | reported | LEVEL=SIZE[,LEVEL=SIZE]...
//   LEVEL: l1, l2 or l3 (l3 is the last level), each at most once, any case;
//   SIZE:  decimal digits, then optionally K, M or G (binary, any case: 48K = 49152 bytes),
//          from 1 KiB to 1 TiB and a whole number of 64-byte lines.
// Sizes go on top of `measured`. False with a kUsage *err naming the value and what is wrong:
// "--sim-cache l3=abc: abc is no size in bytes (digits, then K, M or G); use measured, reported,
// or sizes like l1=48K,l2=2M,l3=32M".
[[nodiscard]] bool ParseSimCacheChoice(const std::string& text, SimCacheChoice* out, Error* err);

// The sizes of `profile` (this machine's newest, stored as `profile_id`) that a sound measurement
// gave (level_sizes.h), into *out, which says where they came from (CacheSizes::origin). The
// caller reads the profile (pipeline/sim_inputs.h): counters never open the database. A level
// whose size *out was given already (CacheSizes::l1d_given, ...) keeps it and is left out of
// the origin.
void SimCacheSizesFromProfile(const MachineProfile& profile, int64_t profile_id, CacheSizes* out);

// Puts the sizes `choice` gives into *sizes (marked given) and nothing else: what
// SimCacheSizesFromProfile then leaves alone.
void GiveSimCacheSizes(const SimCacheChoice& choice, CacheSizes* sizes);

// Once *sizes holds every level's size and the origin of those not given: says in its origin
// which sizes `choice` gave ("given by --sim-cache l3=32M; the other levels <origin>"), which
// of them `topology`'s geometry (SimCacheGeometry) rounds down to whole sets, and which it has
// no level for (l2= where level 2 is the last, for instance). Nothing when `choice` gives none.
void NoteGivenSimCacheSizes(const SimCacheChoice& choice, const Topology& topology,
                            CacheSizes* sizes);

// The inclusion policy of cache level `level` (2, 3, ...) relative to the levels above it on a
// CPU of `topology` (cache_sim.h's policies): "victim" (AMD's and Hygon's L3), "inclusive"
// (Intel's L3 up to Skylake client and Broadwell server), "non-inclusive" (Intel's later L3s
// and Skylake-SP on; every L2).
std::string CacheInclusion(const Topology& topology, int level);

// The hierarchy rprofsim simulates on a machine whose data caches are `caches` (sysfs's, L1D
// first; at most 4 levels): L1D's, L2's and the last level's size replaced by `sizes` where it
// has one (a measured size to the nearest whole set count; a reported one, or one the user gave,
// rounded down: never more cache than the hardware or the user says), sysfs's ways and line (8
// and 16 ways, 64 B where it says none), and the vendor's inclusion. What the run stores
// (RunRecord::sim_caches) and SimHierarchy passes.
std::vector<SimCacheRecord> SimCacheGeometry(const Topology& topology, const CacheSizes& sizes);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_CACHE_SIZES_H_
