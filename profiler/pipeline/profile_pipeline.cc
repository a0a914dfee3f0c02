#include "pipeline/profile_pipeline.h"

#include <algorithm>

#include "machine/current_machine.h"
#include "machine/level_sizes.h"
#include "machine/machine_measure.h"
#include "machine/profile_trust.h"

namespace rprof {

bool StoreMeasuredProfile(RunStore* store, MachineProfile profile, StoredProfile* stored,
                          Error* err) {
  // Level sizes consistent with this machine's newest profile: the same size within the
  // sweeps' resolution is kept, and counted, rather than a new size every time.
  StoredProfile previous;
  bool have_previous = false;
  if (!LoadNewestProfile(store, CurrentMachine().fingerprint, &previous, &have_previous, err))
    return false;
  if (have_previous)
    ReconcileLevelSizes(
        previous.profile, previous.id,
        std::max(SizeResolution(profile.mode), SizeResolution(previous.profile.mode)), &profile);
  else
    ReconcileLevelSizes(MachineProfile(), 0, SizeResolution(profile.mode), &profile);
  // The size each level is given: the reported prior unless a sound, repeated measurement
  // replaces it (level_sizes.h); what sim simulates by default.
  DecideLevelSizes(have_previous ? &previous.profile : nullptr, previous.id, &profile);

  int64_t id = 0;
  if (!InsertProfile(store, CurrentMachine(), profile, &id, err)) return false;
  return LoadProfile(store, id, stored, err);
}

}  // namespace rprof
