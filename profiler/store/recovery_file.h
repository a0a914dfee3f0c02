// Where a measured run goes when the database cannot take it (the disk filled up during the
// measurement, another process held the lock past the busy timeout): a file of its own, in the
// run JSON `rprof show --format json` writes, that `rprof import` stores later. Nothing
// measured is lost to a database that was fine when the run began.
#ifndef RPROF_STORE_RECOVERY_FILE_H_
#define RPROF_STORE_RECOVERY_FILE_H_

#include <string>
#include <string_view>

#include "core/error.h"
#include "core/run.h"

namespace rprof {

// $XDG_STATE_HOME/rprof/recovered, else ~/.local/state/rprof/recovered: state the user should
// act on, not data rprof can make again.
std::string RecoveryDirectory();

// Writes json (the whole run) to a new file in the recovery directory, creating it, named by the
// run's start time and uid ("run-2026-11-29T23-40-00.123Z-<uid>.json") so that runs never share
// one; *path gets the name. The text goes to a temporary name first and is renamed when whole, so
// a file there is never half a run. False with *err (kEnvironment: "cannot write PATH: No space
// left on device") when it cannot be written.
[[nodiscard]] bool WriteRecoveryFile(const RunRecord& run, std::string_view json, std::string* path,
                                     Error* err);

// Whether path names a file in the recovery directory.
bool InRecoveryDirectory(const std::string& path);

}  // namespace rprof

#endif  // RPROF_STORE_RECOVERY_FILE_H_
