// A stored run placed against the newest machine profile of its own machine, for every command
// that shows runs (run, show, compare).
#ifndef RPROF_ROOFLINE_STORED_RUN_PLACEMENT_H_
#define RPROF_ROOFLINE_STORED_RUN_PLACEMENT_H_

#include <optional>

#include "core/run.h"
#include "roofline/placement.h"
#include "store/run_store.h"

namespace rprof {

// The run's shape (RunShapeOf: its precision, declared or from its FLOPs; its threads) against
// the profile, the whole run and each of its marker regions (RunPlacement::regions).
// No profile, or a database error reading it: profile_id 0 and `missing` says what to do.
// A noisy profile is used all the same; profile_noisy_reasons says why it is noisy.
RunPlacement PlaceStoredRun(RunStore* store, const RunRecord& run);

// What the placements table keeps of a placement; nullopt without a profile.
std::optional<PlacementRecord> PlacementToStore(const RunPlacement& placement);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_STORED_RUN_PLACEMENT_H_
