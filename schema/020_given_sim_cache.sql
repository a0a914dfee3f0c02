-- rprof store, schema version 20: a simulated cache level's size may be given by the user
-- (`--sim-cache l3=32M`, as cachegrind's --LL), which is neither what sysfs reported nor what a
-- machine profile measured: `run_sim_caches.size_origin` takes 'given' too. The CHECK is widened
-- in place as 018 rewrote its CHECKs (no stored row changes; every stored value stays allowed).
PRAGMA writable_schema = ON;
UPDATE sqlite_master
   SET sql = replace(sql, 'CHECK (size_origin IN (''reported'', ''measured''))',
                     'CHECK (size_origin IN (''reported'', ''measured'', ''given''))')
 WHERE type = 'table' AND name = 'run_sim_caches';
PRAGMA writable_schema = RESET;
