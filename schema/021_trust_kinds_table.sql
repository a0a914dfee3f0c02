-- rprof store, schema version 21: the kinds of trust note are a table, as 018 made the target
-- kinds, statuses and sources: rprof keeps `trust_kinds` equal to core/run.h's kTrustKinds each
-- time it opens the database (store/closed_list_sync.cc), so a new kind of note is a line of C++,
-- never a migration; run_trust.kind references it, so a kind no list has is still refused.
CREATE TABLE trust_kinds (
  name TEXT PRIMARY KEY,  -- multiplexed, approximated, ...
  text TEXT NOT NULL      -- what a note of this kind says about the run's numbers
);
INSERT INTO trust_kinds (name, text) VALUES
  ('multiplexed', 'pmu values counted part of the time and scaled up'),
  ('approximated', 'values estimated from related events, not counted directly'),
  ('uncore', 'socket-wide counts that include other processes'' traffic'),
  ('hypervisor', 'hardware counts taken in a virtual machine'),
  ('events_missing', 'events or metrics that could not be counted, and why'),
  ('untrusted', 'values this machine''s calibration, or the run''s declared work, contradicts'),
  ('uncalibrated', 'values no calibration of this machine has checked'),
  ('noisy_profile', 'placed against a machine profile measured noisy');

-- The CHECK list gives way to the reference, rewritten in place as 018 did (no stored row
-- changes; every stored kind is in the table above). The text replaced is 008's, as every
-- database has it.
PRAGMA writable_schema = ON;
UPDATE sqlite_master
   SET sql = replace(sql,
       'CHECK (kind IN (''multiplexed'', ''approximated'', ''uncore'', ''hypervisor'',' ||
       char(10) || '                                        ''events_missing'', ''untrusted'', ' ||
       '''uncalibrated'',' || char(10) || '                                        ' ||
       '''noisy_profile''))',
       'REFERENCES trust_kinds(name)')
 WHERE type = 'table' AND name = 'run_trust';
PRAGMA writable_schema = RESET;
-- A file whose run_trust did not have 008's text exactly would keep its CHECK: refuse to call it
-- migrated rather than leave a list that refuses the new kinds.
CREATE TEMP TABLE migration_021_check (rewritten INTEGER NOT NULL CHECK (rewritten));
INSERT INTO migration_021_check
  SELECT instr(sql, 'REFERENCES trust_kinds(name)') > 0 FROM sqlite_master
   WHERE type = 'table' AND name = 'run_trust';
DROP TABLE migration_021_check;
