-- rprof store, schema version 2: measured machine profiles (rprof machine measure).
-- A profile is the machine's roofline: compute and bandwidth ceilings, the latency ladder, the
-- memory levels as measured next to what sysfs reports. Runs are placed against the newest
-- profile of their machine.

CREATE TABLE machine_profiles (
  id                  INTEGER PRIMARY KEY,
  machine_id          INTEGER NOT NULL REFERENCES machines(id),
  mode                TEXT NOT NULL CHECK (mode IN ('quick', 'full')),
  threads             INTEGER NOT NULL,  -- thread count of the all-threads ceilings
  isa                 TEXT NOT NULL,     -- ISA extensions usable here, e.g. "sse2 avx avx2 fma"
  nominal_ghz         REAL,              -- NULL when no source knows it
  clock_ghz_scalar    REAL,              -- measured, one core busy
  clock_ghz_vector    REAL,              -- measured, all threads on the widest FMA
  load_average_before REAL,
  seconds             REAL NOT NULL,     -- how long the measurement took
  warnings            TEXT,              -- one per line: competing load, spreads, capped sizes
  created_at          TEXT NOT NULL,     -- ISO 8601 UTC
  rprof_version       TEXT NOT NULL
);
CREATE INDEX machine_profiles_machine ON machine_profiles(machine_id, created_at);

-- One roof per row: a compute rate or a bandwidth at a thread count.
CREATE TABLE ceilings (
  profile_id        INTEGER NOT NULL REFERENCES machine_profiles(id) ON DELETE CASCADE,
  kind              TEXT NOT NULL CHECK (kind IN ('compute', 'bandwidth')),
  name              TEXT NOT NULL,       -- fp64_avx2_fma, l1_load, dram_triad, ...
  level             TEXT NOT NULL,       -- '' for compute; l1, l2, l3, dram
  isa               TEXT NOT NULL,
  precision         TEXT NOT NULL,
  pattern           TEXT NOT NULL,       -- fma, mul_add, add; load, copy, triad, copy_nt
  threads           INTEGER NOT NULL,
  working_set_bytes INTEGER NOT NULL,    -- bandwidth: where it was measured; compute: 0
  value             REAL NOT NULL,
  unit              TEXT NOT NULL,       -- GFLOP/s or GB/s
  spread_pct        REAL NOT NULL,       -- (max - min) / max over repetitions
  repetitions       INTEGER NOT NULL,
  PRIMARY KEY (profile_id, name, threads)
);

CREATE TABLE latency_points (
  profile_id        INTEGER NOT NULL REFERENCES machine_profiles(id) ON DELETE CASCADE,
  working_set_bytes INTEGER NOT NULL,
  ns                REAL NOT NULL,       -- per dependent load
  spread_pct        REAL NOT NULL
);

CREATE TABLE bandwidth_points (
  profile_id        INTEGER NOT NULL REFERENCES machine_profiles(id) ON DELETE CASCADE,
  pattern           TEXT NOT NULL,
  threads           INTEGER NOT NULL,
  working_set_bytes INTEGER NOT NULL,
  gbs               REAL NOT NULL,
  spread_pct        REAL NOT NULL
);

-- The ladder of the memory hierarchy: reported vs effective size, latency, bandwidth.
CREATE TABLE memory_levels (
  profile_id     INTEGER NOT NULL REFERENCES machine_profiles(id) ON DELETE CASCADE,
  level          TEXT NOT NULL,
  reported_size  INTEGER NOT NULL,       -- bytes, sysfs; 0 when unknown or DRAM
  effective_size INTEGER NOT NULL,       -- bytes, measured; 0 for DRAM
  latency_ns     REAL,                   -- NULL when the latency sweep did not find the level
  bandwidth_gbs  REAL,                   -- NULL when the bandwidth sweep did not find it
  PRIMARY KEY (profile_id, level)
);
