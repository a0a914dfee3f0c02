-- rprof store, schema version 8: profiles a run can trust. A profile measured under load, with
-- large spreads or with contradictions (a level's latency not above the level before it, a
-- mul+add ceiling above FMA, a level size its machine's earlier profiles disagree with) is
-- marked noisy, with its reasons; runs placed against it say so. Each level says how many
-- profiles of its machine agree on its effective size.

ALTER TABLE machine_profiles ADD COLUMN noisy INTEGER NOT NULL DEFAULT 0 CHECK (noisy IN (0, 1));
ALTER TABLE machine_profiles ADD COLUMN noisy_reasons TEXT;  -- one per line; NULL when not noisy

ALTER TABLE memory_levels ADD COLUMN size_agreement INTEGER;  -- profiles in a row; NULL: unknown
ALTER TABLE memory_levels ADD COLUMN note TEXT;               -- kept size, contradiction; or NULL

-- A run placed against a noisy profile carries a `noisy_profile` trust note: the kind is added
-- to run_trust's list (SQLite changes a CHECK only by rebuilding the table; rowid kept, as the
-- notes are read in rowid order).
CREATE TABLE run_trust_new (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind    TEXT NOT NULL CHECK (kind IN ('multiplexed', 'approximated', 'uncore', 'hypervisor',
                                        'events_missing', 'untrusted', 'uncalibrated',
                                        'noisy_profile')),
  detail  TEXT NOT NULL,         -- one sentence: which values, how much, what to do
  PRIMARY KEY (run_id, kind, detail)
);
INSERT INTO run_trust_new (rowid, run_id, kind, detail)
  SELECT rowid, run_id, kind, detail FROM run_trust;
DROP TABLE run_trust;
ALTER TABLE run_trust_new RENAME TO run_trust;

-- Profiles stored before: marked by the rule SQL can check on them, large spreads (more than a
-- quarter of the ceilings varied more than 10 % between repetitions).
UPDATE machine_profiles
   SET noisy = 1,
       noisy_reasons =
         (SELECT count(*) FROM ceilings c WHERE c.profile_id = machine_profiles.id
             AND c.spread_pct > 10) || ' of ' ||
         (SELECT count(*) FROM ceilings c WHERE c.profile_id = machine_profiles.id) ||
         ' ceilings varied more than 10 % between repetitions (found when the database was '
         || 'upgraded)'
 WHERE 4 * (SELECT count(*) FROM ceilings c WHERE c.profile_id = machine_profiles.id
               AND c.spread_pct > 10)
       > (SELECT count(*) FROM ceilings c WHERE c.profile_id = machine_profiles.id);
