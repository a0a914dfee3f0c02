// Everything a measuring command does between parsing its options and rendering what it
// measured: where its runs go (the database, or a rank's job database), what the sim source
// takes from it before measuring (the cache sizes to simulate, the fit of its replay times),
// measuring each target with the chosen sources, and ending each run through the one pipeline
// (pipeline/run_pipeline.h). `rprof run` of a kernel, a plugin or a program, every Google
// Benchmark instance and every MPI rank (each an `rprof run` of its own) come through here.
#ifndef RPROF_PIPELINE_RUN_SESSION_H_
#define RPROF_PIPELINE_RUN_SESSION_H_

#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/run.h"
#include "counters/counter_source.h"
#include "counters/group_session.h"
#include "counters/sim_cache_sizes.h"
#include "counters/source_registry.h"
#include "pipeline/run_pipeline.h"
#include "roofline/stored_run_placement.h"
#include "store/run_store.h"
#include "targets/measure.h"
#include "targets/target.h"

namespace rprof {

// What the command line decided, checked already (cli/cmd_run.cc).
struct SessionOptions {
  // The runs database, resolved by the caller (cli/main.cc); a rank stores into its job's
  // database, chosen from it.
  DatabasePath db;
  const GroupPlan* groups = nullptr;     // --group; its approximations become trust notes
  SimCacheChoice sim_cache;              // --sim-cache: measured, reported, or sizes given
  std::string sim_prefetch = "none";     // or "next-line", "stride" (--sim-prefetch)
  std::optional<std::string> precision;  // --precision: declared, before the measured split
  // What each measured run's note says of how it was set up (run --isa's switches), after the
  // execution's own note; "" for nothing.
  std::string setup_note;
};

class RunSession {
 public:
  RunSession() = default;
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  // Before anything runs: *base gets this machine, rprof's version and, for a rank of a
  // parallel job, its rank (targets/rank_identity.h); the store opens (a rank's: its job's
  // database, store/job_database.h), so that a database that cannot take a run fails before
  // the measurement; *request gets the sim inputs and the job's launcher. False with *err
  // (kEnvironment for the store, kUsage for a rank's environment that contradicts itself).
  bool Open(const SessionOptions& options, CounterRequest* request, RunRecord* base, Error* err);

  // Said once for a job, by its first rank, before measuring: where its ranks' runs go when
  // that is not the database asked for ("" otherwise).
  const std::string& notice() const { return notice_; }
  // For a rank whose database is on a network filesystem, the job's directory where it stores
  // its run in a file of its own (store/job_database.h); "" when it stores into the database.
  const std::string& job_dir() const { return job_dir_; }

  // Measures `target` into *run (a copy of Open's base): targets/measure.h's Measure, then
  // what the session adds to every run (the declared precision, the cache geometry rprofsim
  // simulated, the rank's note). Its results and failures as Measure's.
  bool Measure(Target& target, const std::vector<ChosenSource>& sources,
               const CounterRequest& request, RunRecord* run,
               std::vector<SourceFailure>* failed_sources, Error* err) const;

  // Ends a measured run: placed, noted, stored whole, or saved to a recovery file (FinishRun).
  bool Finish(RunRecord* run, RunPlacement* placement, Error* err) const;

 private:
  SessionOptions options_;
  RunStore store_;
  RunPipeline pipeline_;
  std::string job_note_, notice_;
  std::string job_dir_;
};

}  // namespace rprof

#endif  // RPROF_PIPELINE_RUN_SESSION_H_
