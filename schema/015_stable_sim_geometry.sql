-- rprof store, schema version 15: one machine, one geometry. A profile's effective sizes move
-- with a VM's neighbours and a minute's noise; the size each cache level is given
-- (level_sizes.h) is the reported one unless a sound, repeated measurement replaces it, and
-- says which rule decided it. The sim source simulates those sizes, and each run keeps the
-- geometry it simulated.

-- The size the level is given, and why; NULL for DRAM and for profiles stored before (whose
-- levels the sim source then simulates as reported).
ALTER TABLE memory_levels ADD COLUMN size_bytes INTEGER;
ALTER TABLE memory_levels ADD COLUMN size_rule TEXT
  CHECK (size_rule IN ('reported', 'measured', 'reported_impossible', 'kept'));
ALTER TABLE memory_levels ADD COLUMN size_reason TEXT;

-- The cache hierarchy the sim source simulated for a run, one row per level.
CREATE TABLE run_sim_caches (
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  level       INTEGER NOT NULL,          -- 1 = L1D, 2, 3, 4
  size_bytes  INTEGER NOT NULL,          -- sets x ways x line, as simulated
  ways        INTEGER NOT NULL,
  line_bytes  INTEGER NOT NULL,
  inclusion   TEXT NOT NULL CHECK (inclusion IN ('non-inclusive', 'inclusive', 'victim')),
  size_origin TEXT NOT NULL CHECK (size_origin IN ('reported', 'measured')),
  PRIMARY KEY (run_id, level)
);
