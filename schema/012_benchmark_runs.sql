-- rprof store, schema version 12: runs of kind 'benchmark', one per instance of a Google
-- Benchmark binary (BM_saxpy/65536), counted over its timed loop only, per iteration. The runs
-- of one invocation of the binary share the tag `invocation` (a run uid of their own); their
-- parameters (arg0=65536, threads) are in params, Google Benchmark's iterations and its real and
-- CPU times (the aggregate rows over repetitions too) are clock metrics.
--
-- SQLite cannot alter a CHECK constraint. Widening one changes no stored row, so the table's
-- definition is rewritten in place, as SQLite documents for such changes (lang_altertable.html,
-- "making other kinds of table schema changes", the writable_schema procedure): the stored
-- schema gains 'benchmark' in the list; `writable_schema = RESET` then makes this connection
-- read the new definition (another connection does at its next statement: the index below
-- raises schema_version).
PRAGMA writable_schema = ON;
UPDATE sqlite_master
   SET sql = replace(sql, 'CHECK (target_kind IN (''builtin'', ''plugin'', ''executable''))',
                     'CHECK (target_kind IN (''builtin'', ''plugin'', ''executable'', ''benchmark''))')
 WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = RESET;
-- `history` of one kind, newest first.
CREATE INDEX runs_kind ON runs(target_kind, started_at);
