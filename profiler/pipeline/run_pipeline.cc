#include "pipeline/run_pipeline.h"

#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "calibrate/calibration_plan.h"
#include "calibrate/run_trust.h"
#include "counters/pmu_diagnosis.h"
#include "counters/sim_source.h"
#include "pipeline/unstored_run.h"
#include "process/interruption.h"
#include "targets/uncore_claim.h"

namespace rprof {

namespace {

// Uncore counts a whole socket: one rank per socket counts it for the job. The trust note's
// detail, "" when the run has no socket-wide value.
std::string ShareUncoreInJob(RunRecord* run) {
  if (!run->job || std::none_of(run->metrics.begin(), run->metrics.end(),
                                [](const Metric& m) { return m.socket_wide && m.value; }))
    return "";
  std::string socket = SocketOfThisProcess();
  int holder = run->job->rank;
  ClaimSocket(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", *run->job, socket, &holder);
  return ApplyUncoreClaim(*run->job, socket, holder, &run->metrics);
}

// The notes stored with the run: a later calibration does not rewrite history.
std::vector<TrustNote> TrustNotesOf(const RunPipeline& pipeline, const RunPlacement& placement,
                                    RunRecord* run) {
  TrustContext trust;
  trust.groups = pipeline.groups;
  trust.virtual_machine = DiagnosePmu().virtual_machine;
  trust.simulator = SimulatorName();
  trust.profile_id = placement.profile_id;
  trust.profile_noisy_reasons = placement.profile_noisy_reasons;
  if (!placement.placement.time_contradiction.empty())
    trust.time_contradictions.push_back(placement.placement.time_contradiction);
  for (const RegionPlacement& r : placement.regions)
    if (!r.placement.time_contradiction.empty())
      trust.time_contradictions.push_back("region " + r.region + ": " +
                                          r.placement.time_contradiction);
  // The target has run: a calibration that cannot be read costs its trust notes, not the run.
  Error calibration_err;
  if (!LoadMetricTrust(pipeline.store, run->machine.fingerprint, &trust.calibration,
                       &calibration_err))
    run->note += (run->note.empty() ? "" : "; ") +
                 std::string("calibration not read, its trust notes absent: ") +
                 calibration_err.message;
  std::vector<CalibrationCheck> plan;
  Error plan_error;
  if (LoadCalibrationPlan(&plan, &plan_error))
    for (const CalibrationCheck& c : plan) trust.checked.push_back(c.metric);
  return RunTrustNotes(*run, trust);
}

}  // namespace

bool FinishRun(const RunPipeline& pipeline, RunRecord* run, RunPlacement* placement, Error* err) {
  std::vector<TrustNote> own = std::move(run->trust);
  if (std::string uncore = ShareUncoreInJob(run); !uncore.empty())
    own.push_back({"uncore", uncore});
  // Placed before storing, so the run and where it stood are stored together.
  *placement = PlaceStoredRun(pipeline.store, *run);
  run->placement = PlacementToStore(*placement);
  run->trust = TrustNotesOf(pipeline, *placement, run);
  for (TrustNote& note : own) run->trust.push_back(std::move(note));
  EnterPhase(Phase::kStoring);
  // The database could take the run when it was opened; if it no longer can (a full disk, a
  // lock held past the busy timeout), the run goes to a recovery file rather than being lost.
  if (!pipeline.store->Insert(run, err)) return SaveUnstoredRun(*run, pipeline.db, err);
  return true;
}

}  // namespace rprof
