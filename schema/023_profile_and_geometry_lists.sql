-- rprof store, schema version 23: the last CHECK lists of names become tables, as 018 and 021
-- made the target kinds, statuses, sources and trust kinds. rprof keeps each table equal to its
-- list in core/stored_names.h (calibrations' sources: core/source.h) every time it opens the
-- database (store/closed_list_sync.cc), so a new name is a line of C++, never a migration; the
-- columns reference the tables, so a name no list has is still refused. calibrations.source
-- refused any source but pmu and sim (SQLite error 19 for a new one): it now references the
-- sources table, and which sources calibrate is core/source.h's `calibratable` trait.
CREATE TABLE profile_modes (
  name TEXT PRIMARY KEY,  -- quick, full
  text TEXT NOT NULL      -- how thoroughly such a profile is measured
);
INSERT INTO profile_modes (name, text) VALUES
  ('quick', 'fewer sweep points and short repetitions'),
  ('full', 'every pattern over the whole sweep');
CREATE TABLE ceiling_kinds (
  name TEXT PRIMARY KEY,  -- compute, bandwidth
  text TEXT NOT NULL      -- what such a roof measures
);
INSERT INTO ceiling_kinds (name, text) VALUES
  ('compute', 'peak FLOP/s of one precision, ISA and instruction'),
  ('bandwidth', 'sustained bytes/s of one memory level and access pattern');
CREATE TABLE level_size_rules (
  name TEXT PRIMARY KEY,  -- reported, measured, reported_impossible, kept
  text TEXT NOT NULL      -- which rule decided a cache level's size
);
INSERT INTO level_size_rules (name, text) VALUES
  ('reported', 'the reported size holds'),
  ('measured', 'a sound, repeated measurement replaced the reported size'),
  ('reported_impossible', 'the reported size cannot be; a sound measurement replaced it'),
  ('kept', 'this profile''s measurement is not sound: an earlier decided size stands');
CREATE TABLE cache_inclusions (
  name TEXT PRIMARY KEY,  -- non-inclusive, inclusive, victim
  text TEXT NOT NULL      -- a simulated level's policy relative to the levels above it
);
INSERT INTO cache_inclusions (name, text) VALUES
  ('non-inclusive', 'holds lines independently of the levels above'),
  ('inclusive', 'holds every line the levels above hold'),
  ('victim', 'filled by the lines the level above evicts');
CREATE TABLE cache_size_origins (
  name TEXT PRIMARY KEY,  -- reported, measured, given
  text TEXT NOT NULL      -- where a simulated level's size came from
);
INSERT INTO cache_size_origins (name, text) VALUES
  ('reported', 'the size sysfs or CPUID reported'),
  ('measured', 'the size the machine profile decided from measurements'),
  ('given', 'the size the user gave (--sim-cache)');

-- The CHECK lists give way to the references, rewritten in place as 018 and 021 did (no stored
-- row changes; every stored name is in the tables above, which hold the CHECKs' own lists). The
-- texts replaced are 002's, 004's, 015's and 020's, as every database has them.
PRAGMA writable_schema = ON;
UPDATE sqlite_master
   SET sql = replace(sql, 'CHECK (mode IN (''quick'', ''full''))',
                     'REFERENCES profile_modes(name)')
 WHERE type = 'table' AND name = 'machine_profiles';
UPDATE sqlite_master
   SET sql = replace(sql, 'CHECK (kind IN (''compute'', ''bandwidth''))',
                     'REFERENCES ceiling_kinds(name)')
 WHERE type = 'table' AND name = 'ceilings';
UPDATE sqlite_master
   SET sql = replace(sql,
       'CHECK (size_rule IN (''reported'', ''measured'', ''reported_impossible'', ''kept''))',
       'REFERENCES level_size_rules(name)')
 WHERE type = 'table' AND name = 'memory_levels';
UPDATE sqlite_master
   SET sql = replace(sql, 'CHECK (source IN (''pmu'', ''sim''))', 'REFERENCES sources(name)')
 WHERE type = 'table' AND name = 'calibrations';
UPDATE sqlite_master
   SET sql = replace(replace(sql,
       'CHECK (inclusion IN (''non-inclusive'', ''inclusive'', ''victim''))',
       'REFERENCES cache_inclusions(name)'),
       'CHECK (size_origin IN (''reported'', ''measured'', ''given''))',
       'REFERENCES cache_size_origins(name)')
 WHERE type = 'table' AND name = 'run_sim_caches';
PRAGMA writable_schema = RESET;
-- A file whose tables did not have those texts exactly would keep a CHECK: refuse to call it
-- migrated rather than leave a list that refuses the new names.
CREATE TEMP TABLE migration_023_check (rewritten INTEGER NOT NULL CHECK (rewritten));
INSERT INTO migration_023_check
  SELECT instr(sql, 'CHECK (') = 0 FROM sqlite_master
   WHERE type = 'table' AND name IN ('ceilings', 'calibrations', 'run_sim_caches');
INSERT INTO migration_023_check
  SELECT instr(sql, 'REFERENCES profile_modes(name)') > 0 FROM sqlite_master
   WHERE type = 'table' AND name = 'machine_profiles';
INSERT INTO migration_023_check
  SELECT instr(sql, 'REFERENCES level_size_rules(name)') > 0 FROM sqlite_master
   WHERE type = 'table' AND name = 'memory_levels';
DROP TABLE migration_023_check;
