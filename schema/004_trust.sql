-- rprof store, schema version 4: how far each counter value can be trusted.
--  * metrics.coverage: the fraction of the measured time an event was counted (multiplexed, or
--    counted in one of several passes) when it was less than all of it; the value is scaled up.
--  * run_trust: why a run's numbers may be less than exact, one row per reason.
--  * calibrations + calibration_points (rprof calibrate): per machine and source, every
--    calibrated metric measured on built-in kernels whose counts are known, at working sets that
--    live in one memory level; metric_trust: the verdict of the newest calibration.

ALTER TABLE metrics ADD COLUMN coverage REAL;  -- NULL: counted throughout, or not a counter

CREATE TABLE run_trust (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind    TEXT NOT NULL CHECK (kind IN ('multiplexed', 'approximated', 'uncore', 'hypervisor',
                                        'events_missing', 'untrusted', 'uncalibrated')),
  detail  TEXT NOT NULL,         -- one sentence: which values, how much, what to do
  PRIMARY KEY (run_id, kind, detail)
);

CREATE TABLE calibrations (
  id            INTEGER PRIMARY KEY,
  machine_id    INTEGER NOT NULL REFERENCES machines(id),
  source        TEXT NOT NULL CHECK (source IN ('pmu', 'sim')),
  pmu           TEXT NOT NULL,   -- the group set used ("icx", "generic", ...); '' for sim
  tolerance_pct REAL NOT NULL,   -- a metric further than this from expected is untrusted
  created_at    TEXT NOT NULL,   -- ISO 8601 UTC
  rprof_version TEXT NOT NULL
);
CREATE INDEX calibrations_machine ON calibrations(machine_id, source, created_at);

CREATE TABLE calibration_points (
  calibration_id    INTEGER NOT NULL REFERENCES calibrations(id) ON DELETE CASCADE,
  metric            TEXT NOT NULL,   -- canonical name: flops_dp, bytes_l2, ...
  metric_group      TEXT NOT NULL,   -- the group that measured it (FLOPS_DP, L2, ...); '' for sim
  kernel            TEXT NOT NULL,   -- built-in kernel with known counts
  params            TEXT NOT NULL,   -- JSON object, as in runs.params
  level             TEXT NOT NULL,   -- the memory level the working set lives in: l1 .. dram
  working_set_bytes INTEGER NOT NULL,
  expected          REAL NOT NULL,   -- per call, from the calibration plan's formula
  measured          REAL,            -- per call; NULL when it could not be measured, see note
  ratio             REAL,            -- measured / expected
  note              TEXT,
  PRIMARY KEY (calibration_id, metric, kernel, level)
);

-- One row per machine, source and metric: the newest calibration's verdict. A metric is
-- trusted when every point of it is within the calibration's tolerance.
CREATE VIEW metric_trust AS
WITH newest AS (
  SELECT c.* FROM calibrations c
  WHERE c.id = (SELECT id FROM calibrations c2
                WHERE c2.machine_id = c.machine_id AND c2.source = c.source
                ORDER BY created_at DESC, id DESC LIMIT 1)
)
SELECT
  n.machine_id,
  n.source,
  p.metric,
  n.id AS calibration_id,
  n.created_at,
  n.tolerance_pct,
  min(p.ratio) AS min_ratio,
  max(p.ratio) AS max_ratio,
  count(*) AS points,
  count(p.ratio) AS measured_points,
  CASE WHEN count(p.ratio) = count(*)
        AND max(abs(p.ratio - 1)) * 100 <= n.tolerance_pct THEN 1 ELSE 0 END AS trusted
FROM newest n
JOIN calibration_points p ON p.calibration_id = n.id
GROUP BY n.machine_id, n.source, p.metric;
