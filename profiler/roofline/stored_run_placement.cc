#include "roofline/stored_run_placement.h"

#include <cstdlib>

#include "store/profile_store.h"

namespace rprof {

RunPlacement PlaceStoredRun(RunStore* store, const RunRecord& run) {
  RunPlacement result;
  StoredProfile profile;
  bool found = false;
  Error err;
  if (!LoadNewestProfile(store, run.machine.fingerprint, &profile, &found, &err)) {
    result.missing = "cannot read the machine profile: " + err.message;
    return result;
  }
  if (!found) {
    result.missing = "no machine profile for this machine yet; `rprof machine measure` (about "
                     "15 s) measures its roofline, then every run is placed on it";
    return result;
  }
  RunShape shape;
  shape.precision = run.precision;
  for (const auto& [key, value] : run.params)
    if (key == "threads") shape.threads = std::max(1, std::atoi(value.c_str()));
  result.profile_id = profile.id;
  result.placement = PlaceRun(run.metrics, shape, profile.profile);
  return result;
}

}  // namespace rprof
