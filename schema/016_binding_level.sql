-- rprof store, schema version 16: where a verdict binds, so that tables show the AI of that
-- level beside it (not always DRAM's), and the bound as tables print it, which never shortens a
-- side found on the model's compulsory bytes alone to "compute".

-- The level whose roof binds ('l1', 'l2', 'l3', 'dram'; compute-bound: the level whose memory
-- roof is nearest; a run without FLOPs: the level its bytes came closest to the roof of) and
-- the source of its bytes ('pmu', 'sim', 'model'). NULL when not placed, or stored before this
-- version by a compute bound (which did not say).
ALTER TABLE placements ADD COLUMN binding_level TEXT;
ALTER TABLE placements ADD COLUMN binding_source TEXT;
-- The bound as tables print it: "l3 bandwidth", "compute", "≥ compute side (model bytes only)",
-- "dram bandwidth (model bytes only)". NULL when not placed.
ALTER TABLE placements ADD COLUMN bound_text TEXT;

-- Runs stored before this version: a bandwidth bound names its level; the bound's text as rprof
-- now writes it (roofline/placement.h, BoundText).
UPDATE placements SET binding_level = substr(bound, 1, instr(bound, ' bandwidth') - 1)
WHERE bound LIKE '% bandwidth';
UPDATE placements SET bound_text = CASE
    WHEN coalesce(bytes_compulsory_only, 0) = 0 THEN bound
    WHEN bound = 'compute' THEN '≥ compute side (model bytes only)'
    ELSE bound || ' (model bytes only)' END
WHERE bound IS NOT NULL;

DROP VIEW run_summary;
-- As in 006, with the binding level, its AI (from the binding source's bytes, else the
-- preferred source's) and the bound as tables print it. ai_dram stays: the classic roofline's.
CREATE VIEW run_summary AS
SELECT
  r.id AS run_id,
  r.started_at,
  r.target,
  r.params,
  r.status,
  r.precision,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'time_s') AS time_s,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'gflops'
     AND value IS NOT NULL ORDER BY coalesce((SELECT preference FROM sources
       WHERE sources.name = metrics.source), 1000) LIMIT 1) AS gflops,
  (SELECT source FROM metrics WHERE run_id = r.id AND region = '' AND name = 'gflops'
     AND value IS NOT NULL ORDER BY coalesce((SELECT preference FROM sources
       WHERE sources.name = metrics.source), 1000) LIMIT 1) AS gflops_source,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'gbs_dram'
     AND value IS NOT NULL ORDER BY coalesce((SELECT preference FROM sources
       WHERE sources.name = metrics.source), 1000) LIMIT 1) AS gbs_dram,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'ai_l1'
     AND value IS NOT NULL ORDER BY coalesce((SELECT preference FROM sources
       WHERE sources.name = metrics.source), 1000) LIMIT 1) AS ai_l1,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'ai_l2'
     AND value IS NOT NULL ORDER BY coalesce((SELECT preference FROM sources
       WHERE sources.name = metrics.source), 1000) LIMIT 1) AS ai_l2,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'ai_l3'
     AND value IS NOT NULL ORDER BY coalesce((SELECT preference FROM sources
       WHERE sources.name = metrics.source), 1000) LIMIT 1) AS ai_l3,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'ai_dram'
     AND value IS NOT NULL ORDER BY coalesce((SELECT preference FROM sources
       WHERE sources.name = metrics.source), 1000) LIMIT 1) AS ai_dram,
  p.binding,
  p.percent_of_roof,
  p.verdict,
  (SELECT group_concat(key || '=' || value, ' ') FROM tags WHERE run_id = r.id) AS tags,
  m.hostname,
  m.fingerprint,
  p.binding_level,
  coalesce(
    (SELECT value FROM metrics WHERE run_id = r.id AND region = ''
       AND name = 'ai_' || p.binding_level AND source = p.binding_source),
    (SELECT value FROM metrics WHERE run_id = r.id AND region = ''
       AND name = 'ai_' || p.binding_level AND value IS NOT NULL
       ORDER BY coalesce((SELECT preference FROM sources
         WHERE sources.name = metrics.source), 1000) LIMIT 1)) AS ai_binding,
  p.bound_text
FROM runs r
JOIN machines m ON m.id = r.machine_id
LEFT JOIN placements p ON p.run_id = r.id;
