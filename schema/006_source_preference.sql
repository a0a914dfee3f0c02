-- rprof store, schema version 6: the order in which run_summary prefers one source's value
-- over another's, as a table rprof keeps equal to its own list of sources (core/source.h) each
-- time it opens the database, instead of a list of names written into the view.

CREATE TABLE sources (
  name       TEXT PRIMARY KEY,  -- pmu, sim, model
  preference INTEGER NOT NULL   -- 1 is preferred; a source not listed sorts after all of these
);
INSERT INTO sources (name, preference) VALUES ('pmu', 1), ('sim', 2), ('model', 3);

DROP VIEW run_summary;
-- The preferred value of a metric: the source with the lowest preference number.
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
  m.fingerprint
FROM runs r
JOIN machines m ON m.id = r.machine_id
LEFT JOIN placements p ON p.run_id = r.id;
