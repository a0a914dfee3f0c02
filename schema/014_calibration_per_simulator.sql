-- rprof store, schema version 14: the sim source's calibrations, one verdict per simulator.
-- The sim source runs rprofsim where it is built and callgrind elsewhere, and their counts
-- differ (callgrind has no write-backs below its last level: bytes_l2 of stores is 0.75 of the
-- truth), so one simulator's verdict must not vouch for the other's counts. calibrations.pmu
-- names the counter set a calibration checked: a PMU's group set ("icx"), or for sim the
-- simulator ("rprofsim", "callgrind"). Before this version it was '' for sim, and callgrind
-- was the only simulator.
UPDATE calibrations SET pmu = 'callgrind' WHERE source = 'sim' AND pmu = '';

-- metric_trust as in 004: the newest calibration per machine and source, and for sim per
-- simulator (a machine's pmu calibrations stay one series: its newest is its verdict).
DROP VIEW metric_trust;
CREATE VIEW metric_trust AS
WITH newest AS (
  SELECT c.* FROM calibrations c
  WHERE c.id = (SELECT id FROM calibrations c2
                WHERE c2.machine_id = c.machine_id AND c2.source = c.source
                  AND (c.source <> 'sim' OR c2.pmu = c.pmu)
                ORDER BY created_at DESC, id DESC LIMIT 1)
)
SELECT
  n.machine_id,
  n.source,
  n.pmu AS counter_set,
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
GROUP BY n.machine_id, n.source, n.pmu, p.metric;
