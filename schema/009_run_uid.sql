-- rprof store, schema version 9: every run has an identity of its own, kept when it moves
-- between databases (`rprof import` of `rprof show --format json` or of a recovery file), so
-- that importing the same run twice stores it once.

ALTER TABLE runs ADD COLUMN uid TEXT;  -- 32 lowercase hex digits, random (128 bits)
UPDATE runs SET uid = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX runs_uid ON runs(uid);

-- A run inserted without one (by someone's own SQL) still gets one.
CREATE TRIGGER runs_uid_given AFTER INSERT ON runs WHEN NEW.uid IS NULL
BEGIN
  UPDATE runs SET uid = lower(hex(randomblob(16))) WHERE id = NEW.id;
END;
