// The closed lists of names that machine profiles' and simulated geometries' rows hold, beside
// those with traits of their own (core/source.h, core/target_kind.h, core/run.h's statuses and
// trust kinds): each a table of name and meaning. The store keeps a table equal to each at every
// read-write open (store/closed_list_sync.cc, schema 023), and the columns reference those
// tables, so a new name is a row here and never a migration.
#ifndef RPROF_CORE_STORED_NAMES_H_
#define RPROF_CORE_STORED_NAMES_H_

#include <array>
#include <string_view>

namespace rprof {

struct StoredName {
  std::string_view name;  // as stored
  std::string_view text;  // what it means, for users' own SQL
};

// machine_profiles.mode: how thoroughly the profile was measured (machine/machine_measure.h).
inline constexpr std::array<StoredName, 2> kProfileModes = {{
    {"quick", "fewer sweep points and short repetitions"},
    {"full", "every pattern over the whole sweep"},
}};

// ceilings.kind: a compute roof (FLOP/s) or a bandwidth roof (bytes/s of one level).
inline constexpr std::array<StoredName, 2> kCeilingKinds = {{
    {"compute", "peak FLOP/s of one precision, ISA and instruction"},
    {"bandwidth", "sustained bytes/s of one memory level and access pattern"},
}};

// memory_levels.size_rule: which rule decided a cache level's size (machine/level_sizes.h).
inline constexpr std::array<StoredName, 4> kLevelSizeRules = {{
    {"reported", "the reported size holds"},
    {"measured", "a sound, repeated measurement replaced the reported size"},
    {"reported_impossible", "the reported size cannot be; a sound measurement replaced it"},
    {"kept", "this profile's measurement is not sound: an earlier decided size stands"},
}};

// run_sim_caches.inclusion: a simulated level's policy relative to the levels above it.
inline constexpr std::array<StoredName, 3> kCacheInclusions = {{
    {"non-inclusive", "holds lines independently of the levels above"},
    {"inclusive", "holds every line the levels above hold"},
    {"victim", "filled by the lines the level above evicts"},
}};

// run_sim_caches.size_origin: where a simulated level's size came from.
inline constexpr std::array<StoredName, 3> kCacheSizeOrigins = {{
    {"reported", "the size sysfs or CPUID reported"},
    {"measured", "the size the machine profile decided from measurements"},
    {"given", "the size the user gave (--sim-cache)"},
}};

}  // namespace rprof

#endif  // RPROF_CORE_STORED_NAMES_H_
