// One kernel measured end to end: counters chosen, setup, warm-up and timed repetitions, check,
// teardown, metrics from every source.
#ifndef RPROF_TARGETS_KERNEL_RUN_H_
#define RPROF_TARGETS_KERNEL_RUN_H_

#include <string>
#include <vector>

#include "core/error.h"
#include "counters/group_session.h"
#include "counters/sim_source.h"
#include "core/run.h"
#include "targets/kernel_catalog.h"
#include "targets/measure_loop.h"

namespace rprof {

struct KernelRunRequest {
  const CatalogEntry* entry = nullptr;
  rprof_args args{};
  KeyValues shown_params;
  // pmu events; when `events_given` is false the default set is used and missing events are
  // never fatal (they are stored as absent with their reason).
  std::vector<std::string> events;
  bool events_given = false;
  bool allow_missing_events = false;
  bool use_pmu = true;  // false with --counters model
  const GroupPlan* groups = nullptr;  // --group: their events counted, their formulas applied
  MeasureOptions measure;
  // The sim source: one warm-up and one counted call of the AVX2 build under valgrind, after
  // the native measurement (so time stays real) and only when the check passed.
  SimMode sim = SimMode::kAuto;
  double sim_budget_s = 20;
};

// Counts one call of the kernel under valgrind (after one warm-up call): the sim metrics of one
// run() call. kEnvironment when sim cannot run or the runner fails.
bool SimulateKernel(const CatalogEntry& entry, const rprof_args& args, std::vector<Metric>* out,
                    Error* err);

// Measures the kernel and fills run's target, samples, metrics, sources and status. A failed
// check or an interrupt is a stored outcome (true, status failed / interrupted); false with *err
// means nothing should be stored: the counters or the kernel's setup could not start.
bool RunKernel(const KernelRunRequest& request, RunRecord* run, Error* err);

}  // namespace rprof

#endif  // RPROF_TARGETS_KERNEL_RUN_H_
