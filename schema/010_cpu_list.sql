-- rprof store, schema version 10: the CPUs a run's target was pinned to (`rprof run --cpu-list`,
-- canonical "0,2-3"), a condition of the measurement like its machine; NULL: not pinned.

ALTER TABLE runs ADD COLUMN cpu_list TEXT;
