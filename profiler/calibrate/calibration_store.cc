#include "calibrate/calibration_store.h"

#include "core/json.h"
#include "rprof_config.h"

namespace rprof {

bool StoreCalibration(RunStore* store, const MachineRecord& machine, const std::string& pmu,
                      const CalibrationResult& result, int64_t* id, Error* err) {
  std::string why;
  auto fail = [&] {
    return Fail(err, ErrorKind::kEnvironment, "database " + store->path() + ": " + why);
  };
  Database* db = store->db();
  Transaction txn(db);
  if (!txn.Begin(&why)) return fail();
  int64_t machine_id = 0;
  if (!store->FindOrInsertMachine(machine, &machine_id, &why)) return fail();

  Statement head;
  if (!db->Prepare("INSERT INTO calibrations (machine_id, source, pmu, tolerance_pct, created_at,"
                   " rprof_version) VALUES (?, ?, ?, ?, ?, ?)",
                   &head, &why))
    return fail();
  head.Bind(1, machine_id);
  head.Bind(2, SourceName(result.source));
  head.Bind(3, pmu);
  head.Bind(4, result.tolerance_pct);
  head.Bind(5, UtcNow());
  head.Bind(6, std::string_view(RPROF_VERSION));
  if (!head.Run(&why)) return fail();
  int64_t calibration_id = db->LastInsertId();

  Statement point;
  if (!db->Prepare("INSERT INTO calibration_points (calibration_id, metric, metric_group, kernel,"
                   " params, level, working_set_bytes, expected, measured, ratio, note)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   &point, &why))
    return fail();
  for (const CalibrationPoint& p : result.points) {
    point.Bind(1, calibration_id);
    point.Bind(2, p.metric);
    point.Bind(3, p.group);
    point.Bind(4, p.kernel);
    point.Bind(5, PairsToJsonObject(p.params));
    point.Bind(6, p.level);
    point.Bind(7, static_cast<int64_t>(p.working_set_bytes));
    point.Bind(8, p.expected);
    point.Bind(9, p.measured);
    point.Bind(10, p.ratio);
    if (p.note.empty()) point.BindNull(11); else point.Bind(11, p.note);
    if (!point.Run(&why)) return fail();
  }
  if (!txn.Commit(&why)) return fail();
  *id = calibration_id;
  return true;
}

bool LoadMetricTrust(RunStore* store, const std::string& fingerprint,
                     std::vector<MetricTrust>* out, Error* err) {
  std::string why;
  Statement s;
  if (!store->db()->Prepare(
          "SELECT t.source, t.metric, t.trusted, t.min_ratio, t.max_ratio, t.points,"
          " t.measured_points, t.tolerance_pct, t.created_at FROM metric_trust t"
          " JOIN machines m ON m.id = t.machine_id WHERE m.fingerprint = ?"
          " ORDER BY t.source, t.metric",
          &s, &why))
    return Fail(err, ErrorKind::kEnvironment, "database " + store->path() + ": " + why);
  s.Bind(1, fingerprint);
  while (s.Step(&why)) {
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
    out->push_back(std::move(t));
  }
  if (!why.empty())
    return Fail(err, ErrorKind::kEnvironment, "database " + store->path() + ": " + why);
  return true;
}

}  // namespace rprof
