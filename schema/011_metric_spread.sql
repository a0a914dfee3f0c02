-- rprof store, schema version 11: a metric's spread over the run's repetitions (perf stat -r's
-- "+- x %": sample standard deviation of the mean, in percent of the mean), so `show` prints
-- what `run` printed; NULL: one repetition, or not a per-repetition count.

ALTER TABLE metrics ADD COLUMN spread_pct REAL;
