#include "counters/sim_cache_sizes.h"

#include "store/profile_store.h"

namespace rprof {

bool ChooseSimCacheSizes(RunStore* store, const std::string& fingerprint, const std::string& choice,
                         CacheSizes* out, Error* err) {
  if (choice == "reported") {
    out->origin = "reported by sysfs (--sim-cache reported)";
    return true;
  }
  StoredProfile stored;
  bool found = false;
  if (!LoadNewestProfile(store, fingerprint, &stored, &found, err)) return false;
  const LevelSummary* l1 = nullptr;
  const LevelSummary* l2 = nullptr;
  const LevelSummary* last = nullptr;
  if (found)
    for (const LevelSummary& level : stored.profile.levels) {
      if (level.level == "dram" || level.effective_size == 0) continue;
      if (level.level == "l1") l1 = &level;
      if (level.level == "l2") l2 = &level;
      last = &level;
    }
  if (!l1 || !last || last == l1) {
    out->origin = found ? "reported by sysfs (machine profile " + std::to_string(stored.id) +
                              " measured no cache levels)"
                        : "reported by sysfs (no machine profile yet: `rprof machine measure` "
                          "measures the effective sizes)";
    return true;
  }
  out->l1d_bytes = l1->effective_size;
  out->llc_bytes = last->effective_size;
  bool middle = l2 != nullptr && l2 != last;
  if (middle) out->l2_bytes = l2->effective_size;
  out->origin = "as machine profile " + std::to_string(stored.id) + " measured them (effective " +
                (middle ? "l1, l2 and " : "l1 and ") + last->level +
                "; --sim-cache reported simulates sysfs's)";
  return true;
}

}  // namespace rprof
