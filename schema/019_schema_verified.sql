-- rprof store, schema version 19: when the file's schema was last found whole. Checking it
-- (store/schema_check.h) reads every table's columns, which was a tenth of `rprof run`'s own
-- cost on every open; the check is skipped while neither the file's schema (SQLite's schema
-- cookie, which every CREATE, ALTER and DROP by anyone moves) nor the schema this rprof
-- expects (its build's snapshot) changed since a writer last found it whole.
CREATE TABLE schema_verified (
  id INTEGER PRIMARY KEY CHECK (id = 1),  -- one row
  expected TEXT NOT NULL,                 -- the snapshot's fingerprint, in hex
  schema_cookie INTEGER NOT NULL          -- PRAGMA schema_version when it was found whole
);
