// A kernel as a target, built-in or from a plugin: set up once, warmed up, called in timed
// repetitions (counters around each), checked, torn down.
#ifndef RPROF_TARGETS_KERNEL_TARGET_H_
#define RPROF_TARGETS_KERNEL_TARGET_H_

#include "targets/kernel_catalog.h"
#include "targets/measure_loop.h"
#include "targets/target.h"

namespace rprof {

// The kernel of `entry` with `args`, as counter sources see it.
CountedTarget CountedKernel(const CatalogEntry& entry, const rprof_args& args);

class KernelTarget : public Target {
 public:
  // `shown_params`: every parameter's value, for the stored run. `measure.interrupted` may be
  // left null: SIGINT/SIGTERM during Execute then end the measurement between repetitions.
  // `timeout_s` > 0 (--timeout): the kernel's whole run, setup to teardown, is stopped after
  // that many seconds and stored as interrupted, with the phase it was in and the repetitions
  // it had finished.
  KernelTarget(const CatalogEntry& entry, const rprof_args& args, KeyValues shown_params,
               MeasureOptions measure, double timeout_s = 0);

  const CountedTarget& counted() const override { return counted_; }
  void Describe(RunRecord* run) const override;
  bool Execute(const LiveCounters& counters, Execution* out, Error* err) override;

 private:
  const CatalogEntry& entry_;
  CountedTarget counted_;
  KeyValues shown_params_;
  MeasureOptions measure_;
  double timeout_s_;
};

}  // namespace rprof

#endif  // RPROF_TARGETS_KERNEL_TARGET_H_
