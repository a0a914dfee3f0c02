// The model counter source: a kernel's own FLOP and compulsory-byte formulas, evaluated for the
// parameter values of a run.
#ifndef RPROF_COUNTERS_MODEL_KERNEL_MODEL_H_
#define RPROF_COUNTERS_MODEL_KERNEL_MODEL_H_

#include <string>
#include <vector>

#include "core/error.h"
#include "core/metric.h"
#include "rprof/kernel.h"

namespace rprof {

// Metrics of one run() call, source model: `flops`, plus `flops_dp` or `flops_sp` by the kernel's
// precision, and `bytes_dram` — the compulsory traffic, which is what DRAM would move if every
// input were read once and every output written once. False with *err naming the kernel and the
// formula when a formula does not parse or evaluate: kTargetFailed, a plugin defect.
[[nodiscard]] bool KernelModelMetrics(const rprof_kernel& kernel, const rprof_args& args,
                                      std::vector<Metric>* out, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_MODEL_KERNEL_MODEL_H_
