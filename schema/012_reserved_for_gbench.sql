-- rprof store, schema version 12: reserved. Issue 19 (MPI jobs) was given migration 013 while
-- migration 012 (Google Benchmark targets) is written on another branch; the migrations must be
-- numbered without a gap, so this empty one holds 012's place on this branch alone.
-- DELETE THIS FILE (and its line in schema/meson.build) when the real 012 is merged.
SELECT 1;
