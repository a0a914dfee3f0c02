#include "calibrate/calibration_store.h"

#include <tuple>

#include "core/json.h"
#include "rprof_config.h"

namespace rprof {

bool StoreCalibration(RunStore* store, const MachineRecord& machine, const std::string& counter_set,
                      const CalibrationResult& result, int64_t* id, Error* err) {
  int64_t calibration_id = 0;
  auto write = [&](Error* why) {
    return store->InsertMachineRow(machine,
                                   "INSERT INTO calibrations (machine_id, source, pmu,"
                                   " tolerance_pct, created_at, rprof_version)"
                                   " VALUES (?, ?, ?, ?, ?, ?)",
                                   &calibration_id, why, SourceName(result.source), counter_set,
                                   result.tolerance_pct, UtcNow(),
                                   std::string_view(RPROF_VERSION)) &&
           store->db()->RunForEach(
               "INSERT INTO calibration_points (calibration_id, metric, metric_group, kernel,"
               " params, level, working_set_bytes, expected, measured, ratio, note)"
               " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               result.points, why, [&](const CalibrationPoint& p) {
                 return std::tuple(calibration_id, p.metric, p.group, p.kernel,
                                   PairsToJsonObject(p.params), p.level, p.working_set_bytes,
                                   p.expected, p.measured, p.ratio, NullIfEmpty(p.note));
               });
  };
  if (!store->WriteInTransaction(write, err)) return false;
  *id = calibration_id;
  return true;
}

bool LoadMetricTrust(RunStore* store, const std::string& fingerprint, std::vector<MetricTrust>* out,
                     Error* err) {
  auto add_trust = [&](const Statement& s) {
    MetricTrust t;
    t.source = ParseSource(s.Text(0)).value_or(Source::kPmu);
    t.metric = s.Text(1);
    t.trusted = s.Int(2) != 0;
    t.min_ratio = s.OptionalDouble(3);
    t.max_ratio = s.OptionalDouble(4);
    t.points = static_cast<int>(s.Int(5));
    t.measured_points = static_cast<int>(s.Int(6));
    t.tolerance_pct = s.Double(7);
    t.created_at = s.Text(8);
    t.counter_set = s.Text(9);
    out->push_back(std::move(t));
  };
  Error why;
  if (!store->db()->ForEachRow(
          "SELECT t.source, t.metric, t.trusted, t.min_ratio, t.max_ratio, t.points,"
          " t.measured_points, t.tolerance_pct, t.created_at, t.counter_set FROM metric_trust t"
          " JOIN machines m ON m.id = t.machine_id WHERE m.fingerprint = ?"
          " ORDER BY t.source, t.counter_set, t.metric",
          &why, add_trust, fingerprint))
    return store->DbFail(why.message, err);
  return true;
}

}  // namespace rprof
