-- rprof store, schema version 1. Documented for users' own SQL (README: "The database").
-- Every value carries its source; a value that could not be measured is NULL with a note.

-- One row per machine, keyed by a fingerprint of its CPU, topology, kernel and hostname.
CREATE TABLE machines (
  id          INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  cpu_model   TEXT NOT NULL,
  cores       INTEGER NOT NULL,       -- logical CPUs online
  caches      TEXT NOT NULL,          -- e.g. "L1d 32K, L2 512K, L3 32M" as sysfs reports them
  kernel      TEXT NOT NULL,          -- uname -r
  hostname    TEXT NOT NULL,
  first_seen  TEXT NOT NULL           -- ISO 8601 UTC
);

-- One row per measurement of one target.
CREATE TABLE runs (
  id            INTEGER PRIMARY KEY,
  machine_id    INTEGER NOT NULL REFERENCES machines(id),
  target_kind   TEXT NOT NULL CHECK (target_kind IN ('builtin', 'plugin', 'executable')),
  target        TEXT NOT NULL,        -- kernel name, or the executable's path
  params        TEXT NOT NULL,        -- JSON object: kernel parameters ({} for executables)
  command       TEXT,                 -- JSON array: the command line, for executables
  cwd           TEXT,
  precision     TEXT,                 -- fp64 | fp32 | NULL
  status        TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'crashed', 'interrupted')),
  exit_code     INTEGER,
  signal        INTEGER,
  note          TEXT,                 -- why it failed, in words
  sources       TEXT NOT NULL,        -- comma-separated sources used: clock,pmu,sim,model
  repetitions   INTEGER NOT NULL,     -- timed repetitions (rows in samples)
  calls_per_rep INTEGER NOT NULL,     -- target calls in one repetition (kernels batch short calls)
  started_at    TEXT NOT NULL,        -- ISO 8601 UTC
  ended_at      TEXT NOT NULL,
  rprof_version TEXT NOT NULL
);
CREATE INDEX runs_target ON runs(target, started_at);

-- Wall time of every timed repetition, per call of the target.
CREATE TABLE samples (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rep     INTEGER NOT NULL,           -- 0-based
  time_s  REAL NOT NULL,
  PRIMARY KEY (run_id, rep)
);

-- Counts and rates per run, region and source. Counts are per call of the target.
CREATE TABLE metrics (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  region  TEXT NOT NULL DEFAULT '',   -- '' is the whole run; else a marker region
  name    TEXT NOT NULL,              -- canonical metric name or PMU event name
  source  TEXT NOT NULL CHECK (source IN ('clock', 'pmu', 'sim', 'model')),
  value   REAL,                       -- NULL: not measurable here, see note
  unit    TEXT NOT NULL,
  note    TEXT,                       -- reason for NULL, or the approximation made
  PRIMARY KEY (run_id, region, name, source)
);

CREATE TABLE tags (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key     TEXT NOT NULL,
  value   TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
);
