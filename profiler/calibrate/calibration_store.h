// Calibrations in the store (schema 004): a calibration is stored whole, with every point, in one
// transaction; the newest verdict per metric is read back through the metric_trust view.
#ifndef RPROF_CALIBRATE_CALIBRATION_STORE_H_
#define RPROF_CALIBRATE_CALIBRATION_STORE_H_

#include <optional>
#include <string>
#include <vector>

#include "calibrate/calibration.h"
#include "store/run_store.h"

namespace rprof {

// `counter_set` is what was checked: the group set used ("icx", "generic") for pmu, the
// simulator ("rprofsim", "callgrind": SimulatorName()) for sim. Sets *id.
bool StoreCalibration(RunStore* store, const MachineRecord& machine, const std::string& counter_set,
                      const CalibrationResult& result, int64_t* id, Error* err);

// One row of metric_trust: the newest calibration's verdict on a metric of a source and counter
// set (the pmu's group set, or the simulator).
struct MetricTrust {
  Source source = Source::kPmu;
  std::string counter_set;
  std::string metric;
  bool trusted = false;
  std::optional<double> min_ratio, max_ratio;
  int points = 0;
  int measured_points = 0;
  double tolerance_pct = 0;
  std::string created_at;
};

// Every verdict of the machine with this fingerprint (none when it was never calibrated).
bool LoadMetricTrust(RunStore* store, const std::string& fingerprint, std::vector<MetricTrust>* out,
                     Error* err);

}  // namespace rprof

#endif  // RPROF_CALIBRATE_CALIBRATION_STORE_H_
