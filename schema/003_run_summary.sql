-- rprof store, schema version 3: where each run stood on its machine's roofline when it was
-- measured, and run_summary, one row per run for people's own SQL:
--   sqlite3 rprof.db 'select * from run_summary'

CREATE TABLE placements (
  run_id            INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  profile_id        INTEGER NOT NULL REFERENCES machine_profiles(id),
  compute_ceiling   TEXT NOT NULL,   -- e.g. fp64_avx2_fma
  peak_gflops       REAL NOT NULL,
  binding           TEXT,            -- "dram bandwidth (dram_triad)", "compute (fp64_avx2_fma)"
  attainable_gflops REAL,
  percent_of_roof   REAL,
  verdict           TEXT NOT NULL    -- the one-line verdict, or why the run was not placed
);

-- The preferred value of a metric: measured sources (pmu, then sim) before the model.
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
     AND value IS NOT NULL ORDER BY instr('pmu sim model', source) LIMIT 1) AS gflops,
  (SELECT source FROM metrics WHERE run_id = r.id AND region = '' AND name = 'gflops'
     AND value IS NOT NULL ORDER BY instr('pmu sim model', source) LIMIT 1) AS gflops_source,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'gbs_dram'
     AND value IS NOT NULL ORDER BY instr('pmu sim model', source) LIMIT 1) AS gbs_dram,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'ai_l1'
     AND value IS NOT NULL ORDER BY instr('pmu sim model', source) LIMIT 1) AS ai_l1,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'ai_l2'
     AND value IS NOT NULL ORDER BY instr('pmu sim model', source) LIMIT 1) AS ai_l2,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'ai_l3'
     AND value IS NOT NULL ORDER BY instr('pmu sim model', source) LIMIT 1) AS ai_l3,
  (SELECT value FROM metrics WHERE run_id = r.id AND region = '' AND name = 'ai_dram'
     AND value IS NOT NULL ORDER BY instr('pmu sim model', source) LIMIT 1) AS ai_dram,
  p.binding,
  p.percent_of_roof,
  p.verdict,
  (SELECT group_concat(key || '=' || value, ' ') FROM tags WHERE run_id = r.id) AS tags,
  m.hostname,
  m.fingerprint
FROM runs r
JOIN machines m ON m.id = r.machine_id
LEFT JOIN placements p ON p.run_id = r.id;
