-- rprof store, schema version 18: the closed lists a run's columns name are tables, not CHECK
-- lists written into `runs` and `metrics`. rprof keeps each table equal to its own list
-- (core/target_kind.h, core/run.h's statuses, core/source.h) every time it opens the database,
-- adding what is missing (store/run_store.cc, SyncClosedLists), so a new target kind, status or
-- source is a line of C++, never a migration; the columns reference the tables (foreign keys,
-- which rprof's connections enforce), so a name no list has is still refused.
CREATE TABLE target_kinds (
  name TEXT PRIMARY KEY,  -- builtin, plugin, executable, benchmark
  text TEXT NOT NULL      -- what it is
);
INSERT INTO target_kinds (name, text) VALUES
  ('builtin', 'a kernel built into rprof'),
  ('plugin', 'a kernel from a plugin (.so)'),
  ('executable', 'a whole program'),
  ('benchmark', 'one instance of a Google Benchmark binary');
CREATE TABLE run_statuses (
  name TEXT PRIMARY KEY,  -- ok, failed, crashed, interrupted
  text TEXT NOT NULL      -- what it means
);
INSERT INTO run_statuses (name, text) VALUES
  ('ok', 'the target ran to its end and succeeded'),
  ('failed', 'the target exited non-zero, or its check failed'),
  ('crashed', 'the target was killed by a signal of its own'),
  ('interrupted', 'rprof was interrupted or the time limit struck');
-- `sources` (006) held the counting sources' order of preference; the clock joins it, after
-- them (run_summary sorted a source it did not list after every listed one: the same order).
INSERT OR IGNORE INTO sources (name, preference) VALUES ('clock', 4);

-- The CHECK lists give way to the references. SQLite changes a column's constraint only by
-- rebuilding its table, and `runs` and `metrics` are referenced by every other table; removing a
-- CHECK and naming a parent table change no stored row, so the definitions are rewritten in
-- place (lang_altertable.html, the writable_schema procedure, as 012 did to widen the kinds).
-- Every stored name is in the new tables: the lists above are the CHECKs' own.
PRAGMA writable_schema = ON;
UPDATE sqlite_master
   SET sql = replace(replace(sql,
       'CHECK (target_kind IN (''builtin'', ''plugin'', ''executable'', ''benchmark''))',
       'REFERENCES target_kinds(name)'),
       'CHECK (status IN (''ok'', ''failed'', ''crashed'', ''interrupted''))',
       'REFERENCES run_statuses(name)')
 WHERE type = 'table' AND name = 'runs';
UPDATE sqlite_master
   SET sql = replace(sql, 'CHECK (source IN (''clock'', ''pmu'', ''sim'', ''model''))',
                     'REFERENCES sources(name)')
 WHERE type = 'table' AND name = 'metrics';
PRAGMA writable_schema = RESET;
-- `history --status`, newest first (and a schema change every connection sees at once).
CREATE INDEX runs_status ON runs(status, started_at);
