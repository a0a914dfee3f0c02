// What rprof run does with a run it measured but could not store (the disk filled up, a lock
// was held past the busy timeout): it saves the run whole to a recovery file and says that the
// run is not lost, where it is, and how `rprof import` stores it once the database can take it.
#ifndef RPROF_PIPELINE_UNSTORED_RUN_H_
#define RPROF_PIPELINE_UNSTORED_RUN_H_

#include "core/error.h"
#include "core/run.h"
#include "store/run_store.h"

namespace rprof {

// Called with the Insert failure in *err; always returns false, *err then the whole story
// (kEnvironment: exit 3). When even the recovery file cannot be written, the run's JSON goes to
// stderr, so that it can still be saved by hand.
bool SaveUnstoredRun(const RunRecord& run, const DatabasePath& db, Error* err);

}  // namespace rprof

#endif  // RPROF_PIPELINE_UNSTORED_RUN_H_
