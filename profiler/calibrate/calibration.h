// rprof calibrate, the measuring half: every check of the plan at every memory level it names,
// the kernel sized to live in that level, counted by the source being calibrated; measured /
// expected per point, and per metric the verdict (trusted when every point is within tolerance).
// The counting itself is a callback, so the arithmetic is tested on recorded counter values.
#ifndef RPROF_CALIBRATE_CALIBRATION_H_
#define RPROF_CALIBRATE_CALIBRATION_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/calibration_plan.h"
#include "core/error.h"
#include "core/metric.h"
#include "core/run.h"
#include "machine/topology.h"
#include "targets/kernel_catalog.h"

namespace rprof {

// A memory level and the working set that lives in it.
struct CalibrationLevel {
  std::string level;  // l1, l2, l3, dram
  uint64_t working_set_bytes = 0;
};

// From the data caches as sysfs reports them: each cache level at half its size, DRAM at four
// times the last level (at least 64 MiB).
std::vector<CalibrationLevel> CalibrationLevels(const std::vector<CacheLevel>& data_caches);

struct CalibrationPoint {
  std::string metric;
  std::string group;  // the metric group that counted it (pmu); "" for sim
  std::string kernel;
  KeyValues params;
  std::string level;
  uint64_t working_set_bytes = 0;
  double expected = 0;  // per call
  std::optional<double> measured;
  std::optional<double> ratio;  // measured / expected
  std::string note;             // why measured is absent
};

// One measurement: a kernel at one size, counted with one group (or sim); serves every check of
// that kernel, level and group.
struct CalibrationTask {
  const CatalogEntry* entry = nullptr;
  rprof_args args{};
  KeyValues params;
  std::string level;
  uint64_t working_set_bytes = 0;
  std::string group;  // "" for sim
};
// Counts the task; the metrics of `source` are read from *out. False with *err stops the
// calibration (nothing is stored).
using CalibrationMeasure =
    std::function<bool(const CalibrationTask& task, std::vector<Metric>* out, Error* err)>;

struct CalibrationRequest {
  Source source = Source::kPmu;     // pmu or sim
  std::vector<std::string> levels;  // empty: every level of the machine
  // pmu: the group that defines a metric on this machine, "" when none does (the metric is then
  // skipped, and said so). sim: unused.
  std::function<std::string(const std::string& metric)> group_of;
  double tolerance_pct = 5;
  std::function<void(const CalibrationTask&)> progress;  // before each measurement; may be empty
};

struct CalibrationResult {
  Source source = Source::kPmu;
  double tolerance_pct = 5;
  std::vector<CalibrationPoint> points;
  std::vector<std::string> skipped;  // "bytes_l3: sim does not count it", once per metric
};

bool Calibrate(const std::vector<CalibrationCheck>& plan,
               const std::vector<CalibrationLevel>& levels, const KernelCatalog& catalog,
               const CalibrationRequest& request, const CalibrationMeasure& measure,
               CalibrationResult* result, Error* err);

// Per metric, in plan order: trusted when every point was measured and is within tolerance.
struct MetricVerdict {
  std::string metric;
  int points = 0;
  int measured_points = 0;
  std::optional<double> min_ratio, max_ratio;
  bool trusted = false;
  const CalibrationPoint* worst = nullptr;  // the point furthest from 1 (or unmeasured)
};
std::vector<MetricVerdict> Verdicts(const CalibrationResult& result);

}  // namespace rprof

#endif  // RPROF_CALIBRATE_CALIBRATION_H_
