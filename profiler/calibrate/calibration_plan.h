// The calibration plan (calibration_plan.txt, data): which built-in kernels check which metrics,
// with the expected count as a formula over the kernel's parameters, in which memory levels.
#ifndef RPROF_CALIBRATE_CALIBRATION_PLAN_H_
#define RPROF_CALIBRATE_CALIBRATION_PLAN_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/formula.h"

namespace rprof {

struct CalibrationCheck {
  std::string kernel;               // built-in kernel name
  std::string size_param;           // the parameter set from the working set, e.g. "n"
  double bytes_per_unit = 0;        // working set = size_param x bytes_per_unit
  std::string metric;               // canonical metric name
  Formula expected;                 // per call, over the kernel's parameters
  std::vector<std::string> levels;  // l1, l2, l3, dram
  int line = 0;                     // in the plan file, for messages
};

// Parses plan text. False with *err (kEnvironment: the plan ships with rprof) =
// "<origin>:<line>: <cause>" on a malformed line: wrong
// column count, a size that is not PARAM=ws/BYTES, a formula that does not parse, a level that
// is not l1, l2, l3 or dram.
[[nodiscard]] bool ParseCalibrationPlan(std::string_view text, std::string_view origin,
                                        std::vector<CalibrationCheck>* plan, Error* err);

// Reads the plan installed beside the metric groups (or the source tree's copy when rprof runs
// from its build directory). kEnvironment when it cannot be read or is malformed.
[[nodiscard]] bool LoadCalibrationPlan(std::vector<CalibrationCheck>* plan, Error* err);

}  // namespace rprof

#endif  // RPROF_CALIBRATE_CALIBRATION_PLAN_H_
