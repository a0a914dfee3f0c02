// The one way a measured machine profile ends, as a measured run ends in run_pipeline.h: its
// level sizes made consistent with this machine's newest stored profile, decided, and stored.
#ifndef RPROF_PIPELINE_PROFILE_PIPELINE_H_
#define RPROF_PIPELINE_PROFILE_PIPELINE_H_

#include "core/error.h"
#include "machine/machine_profile.h"
#include "store/profile_store.h"
#include "store/run_store.h"

namespace rprof {

// Stores `profile`, as MeasureMachine measured it on this machine, in `store`:
//  - its level sizes reconciled with this machine's newest stored profile (the same size within
//    the coarser of the two profiles' sweep resolutions is kept, and counted:
//    ReconcileLevelSizes), then each level given its size (DecideLevelSizes);
//  - stored whole (InsertProfile), and read back into *stored as the store keeps it.
// False with *err when the store cannot be read or written; nothing is stored then.
[[nodiscard]] bool StoreMeasuredProfile(RunStore* store, MachineProfile profile,
                                        StoredProfile* stored, Error* err);

}  // namespace rprof

#endif  // RPROF_PIPELINE_PROFILE_PIPELINE_H_
