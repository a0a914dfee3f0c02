// What `rprof doctor` finds: what rprof can measure on this machine and why not the rest. Each
// check is found by looking (sysfs, /proc) or by trying (a perf software event is really
// counted, a hardware event really opened), and says ok / limited / missing with the remedy;
// the verdict says whether rprof can do its basic job here — wall time, the model, and FLOPs
// from sim or the PMU — and names what is missing. Nothing is created: not even the database.
#ifndef RPROF_PIPELINE_DOCTOR_CHECKS_H_
#define RPROF_PIPELINE_DOCTOR_CHECKS_H_

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/doctor_report.h"
#include "store/run_store.h"

namespace rprof {

struct DoctorFindings {
  std::vector<DoctorCheck> checks;  // in the order they are shown
  // Whether rprof can do its basic job here: wall time (always), the built-in kernels' models,
  // FLOPs from sim or the PMU, and kernels and programs really counted.
  bool basic = false;
  // One sentence, without its final period, starting "rprof can do its job here: …" or "rprof
  // cannot do its basic job here: no …" with what is missing and why.
  std::string verdict;
  // When !basic, what to do about the first thing missing; "" when basic.
  std::string remedy;
};

// How doctor reaches the runs database, called once after the database check: the store opened
// read-only when the file exists; null both when it does not (*exists false, *err untouched)
// and when it cannot be read (*exists true, *err says why). Creates nothing (the CLI's
// CommandContext::StoreIfExists). The store it returns stays open until RunDoctorChecks returns.
using OpenStoreIfExists = std::function<RunStore*(bool* exists, Error* err)>;

// Runs every check of doctor in the order they are shown: perf_event_paranoid, container, pmu,
// core_pmu, hybrid, uncore, rdpmc, papi, software_events, metric_groups, sim, model, gnuplot,
// database (at db.path), machine_profile and calibration (both read through open_store), then
// decides the verdict. A check that cannot look or try says so in its row; nothing fails.
DoctorFindings RunDoctorChecks(const DatabasePath& db, const OpenStoreIfExists& open_store);

}  // namespace rprof

#endif  // RPROF_PIPELINE_DOCTOR_CHECKS_H_
