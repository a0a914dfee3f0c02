#include "pipeline/run_session.h"

#include <algorithm>

#include "counters/sim_cache_sizes.h"
#include "counters/sim_source.h"
#include "machine/current_machine.h"
#include "machine/topology.h"
#include "pipeline/sim_inputs.h"
#include "rprof_config.h"
#include "store/job_database.h"
#include "store/network_filesystem.h"
#include "targets/rank_identity.h"

namespace rprof {

bool RunSession::Open(const SessionOptions& options, CounterRequest* request, RunRecord* base,
                      Error* err) {
  options_ = options;
  base->machine = CurrentMachine();
  base->rprof_version = RPROF_VERSION;
  if (!RankFromEnvironment(ProcessEnvironment(), base->machine.hostname, &base->job, &job_note_,
                           err))
    return false;
  DatabasePath db_path = options.db;
  if (base->job) {
    request->job_launcher = base->job->launcher.empty() ? "a launcher" : base->job->launcher;
    JobDatabase chosen = ChooseJobDatabase(db_path, *base->job, NetworkFilesystemOf(db_path.path));
    if (base->job->rank == 0) notice_ = chosen.notice;
    db_path = chosen.path;
    job_dir_ = chosen.job_dir;
  }
  if (!store_.Open(db_path, err)) return false;
  pipeline_ = {&store_, db_path, options.groups};
  const std::string& fingerprint = base->machine.fingerprint;
  if (!ChooseSimCacheSizes(&store_, fingerprint, options.sim_cache, &request->caches, err))
    return false;
  if (options.sim_prefetch != "none") request->caches.prefetch = options.sim_prefetch;
  // What replays under this simulator took on this machine before: the sim time estimate's fit.
  return LoadSimTimeFit(&store_, fingerprint, SimulatorName(), &request->sim_time, err);
}

bool RunSession::Measure(Target& target, const std::vector<ChosenSource>& sources,
                         const CounterRequest& request, RunRecord* run,
                         std::vector<SourceFailure>* failed_sources, Error* err) const {
  if (!rprof::Measure(target, sources, request, run, failed_sources, err)) return false;
  // Declared for the program: the roof of its precision, before the measured split of FLOPs.
  if (options_.precision) run->precision = *options_.precision;
  // The geometry rprofsim simulated is stored with the run (callgrind's two levels are in the
  // notes of its metrics).
  if (std::find(run->sources.begin(), run->sources.end(), SourceName(Source::kSim)) !=
          run->sources.end() &&
      SimulatorName() == "rprofsim")
    run->sim_caches = SimCacheGeometry(ReadTopology(), request.caches);
  if (!job_note_.empty()) run->note += (run->note.empty() ? "" : "; ") + job_note_;
  if (!options_.setup_note.empty())
    run->note += (run->note.empty() ? "" : "; ") + options_.setup_note;
  return true;
}

bool RunSession::Finish(RunRecord* run, RunPlacement* placement, Error* err) const {
  return FinishRun(pipeline_, run, placement, err);
}

}  // namespace rprof
