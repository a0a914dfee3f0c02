// A run's trust notes: everything that makes some of its numbers less than exact counts —
// multiplexed events, approximations, socket-wide uncore counts, a hypervisor between the
// counters and the code, events that could not be counted, metrics this machine's calibration
// found off (or never checked). Computed once, before the run is stored, and stored with it.
#ifndef RPROF_CALIBRATE_RUN_TRUST_H_
#define RPROF_CALIBRATE_RUN_TRUST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/calibration_store.h"
#include "core/run.h"
#include "counters/group_session.h"
#include "counters/pmu_diagnosis.h"

namespace rprof {

struct TrustContext {
  const GroupPlan* groups = nullptr;     // --group, when given
  bool virtual_machine = false;          // cpuid's hypervisor bit
  std::vector<MetricTrust> calibration;  // this machine's newest verdicts (may be empty)
  // The simulator that counted the run's sim metrics (SimulatorName()): only its own
  // calibration's verdicts apply to them. "": any sim verdict applies.
  std::string simulator;
  std::vector<std::string> checked;  // the metrics the calibration plan checks
  // Why hardware events cannot be counted here: the advice of an events_missing note is its
  // remedy for what the run did (never "run with --counters sim" to a run sim counted).
  const PmuDiagnosis* pmu = &DiagnosePmu();
  // The machine profile the run is placed against (0: none) and why it is noisy
  // (RunPlacement::profile_noisy_reasons; empty: it is not). Noisy: a `noisy_profile` note.
  int64_t profile_id = 0;
  std::vector<std::string> profile_noisy_reasons;
  // Where the native run's time contradicts the measured bytes its placement first bound on
  // (Placement::time_contradiction of the run, then of each region prefixed "region NAME: "):
  // one `time_contradicts_bytes` note each.
  std::vector<std::string> time_contradictions;
};

// The run's notes, each {kind, detail}: multiplexed, approximated, uncore, events_missing,
// hypervisor, untrusted, uncalibrated, noisy_profile, time_contradicts_bytes.
std::vector<TrustNote> RunTrustNotes(const RunRecord& run, const TrustContext& context);

}  // namespace rprof

#endif  // RPROF_CALIBRATE_RUN_TRUST_H_
