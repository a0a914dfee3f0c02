// The one way a measured run ends, for every command that measures (`rprof run` of a kernel, a
// plugin or a program, each Google Benchmark instance, each MPI rank): placed against the newest
// profile of its machine, given its trust notes, stored in one transaction, or saved whole to a
// recovery file when the store cannot take it. The command line parses options before it and
// renders what it returns; nothing of a run's meaning is decided there.
#ifndef RPROF_PIPELINE_RUN_PIPELINE_H_
#define RPROF_PIPELINE_RUN_PIPELINE_H_

#include "core/error.h"
#include "core/run.h"
#include "counters/group_session.h"
#include "roofline/stored_run_placement.h"
#include "store/run_store.h"

namespace rprof {

struct RunPipeline {
  RunStore* store = nullptr;          // open for writing (RunStore::Open)
  DatabasePath db;                    // where a run the store cannot take is saved from
  const GroupPlan* groups = nullptr;  // --group: its formulas' approximations become notes
};

// Takes `run` as measured and returns it stored: run->placement, run->trust (computed notes
// first, then those the target or the job step gave, kept) and run->id are set, *placement is
// the live placement the report shows. For a rank of a job, socket-wide (uncore) values are
// left to the one rank per socket that claims it (targets/uncore_claim.h), with a note.
// False when the run could not be stored: kEnvironment, *err saying where the recovery file
// holds it (pipeline/unstored_run.h). A calibration that cannot be read costs the run its
// calibration notes (said in run->note), never the run.
bool FinishRun(const RunPipeline& pipeline, RunRecord* run, RunPlacement* placement, Error* err);

}  // namespace rprof

#endif  // RPROF_PIPELINE_RUN_PIPELINE_H_
