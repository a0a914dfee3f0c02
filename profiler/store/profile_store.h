// Machine profiles in the database: stored in one transaction, read back newest first per
// machine, so every run can be placed against its own machine's measured roofline.
#ifndef RPROF_STORE_PROFILE_STORE_H_
#define RPROF_STORE_PROFILE_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "machine/machine_profile.h"
#include "store/run_store.h"

namespace rprof {

// Stores `profile` measured on `machine`; sets *id.
bool InsertProfile(RunStore* store, const MachineRecord& machine, const MachineProfile& profile,
                   int64_t* id, Error* err);

// The newest profile of the machine with this fingerprint. *found is false (and true returned)
// when the machine has none.
bool LoadNewestProfile(RunStore* store, const std::string& fingerprint, StoredProfile* out,
                       bool* found, Error* err);

// One profile by id; kUsage when there is none.
bool LoadProfile(RunStore* store, int64_t id, StoredProfile* out, Error* err);

// Every profile, newest first, without their points (ceilings only).
bool ListProfiles(RunStore* store, std::vector<StoredProfile>* out, Error* err);

}  // namespace rprof

#endif  // RPROF_STORE_PROFILE_STORE_H_
