// Where rprof's temporary files live: one directory per rprof process under $TMPDIR (or /tmp),
// rprof-<pid>.XXXXXX, holding the marker file a program writes, valgrind's output, a plot's data.
// It is removed when rprof exits; one left by an rprof that was killed is swept at the next
// start: its owner's lock on it is gone.
#ifndef RPROF_PROCESS_SCRATCH_DIR_H_
#define RPROF_PROCESS_SCRATCH_DIR_H_

#include <string>

#include "core/error.h"

namespace rprof {

// A new, unique path inside this process's scratch directory (created at the first call):
// `stem` names what it is for ("markers", "sim"). Nothing is created at the path itself.
bool ScratchPath(const std::string& stem, std::string* path, Error* err);

// Removes this process's scratch directory and everything in it. Run at exit.
void RemoveScratchDir();

// Removes the scratch directories of rprof processes that are gone (this user's only).
// Returns how many it removed.
int SweepDeadScratchDirs();

}  // namespace rprof

#endif  // RPROF_PROCESS_SCRATCH_DIR_H_
