-- rprof store, schema version 24: metrics found by name. Every `rprof run` reads what this
-- machine's replays under valgrind took before (metric sim_replay_s, the sim time estimate's
-- fit): without an index on the name SQLite scanned every metric of every run, a cost that grew
-- with the database (4,341 metrics of 425 runs: 5 % of `rprof run /bin/true`'s CPU time).
CREATE INDEX metrics_by_name ON metrics(name, source);
