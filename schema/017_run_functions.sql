-- rprof store, schema version 17: hot functions (issue 28). Without markers, each hot function
-- of a program gets the run's metrics of its own, stored in `metrics` under the region
-- 'fn:' || its name (its symbol, else 'module+0xADDRESS'), and placed like a marker region. This
-- view lists them, one row per run and function, for `rprof query`.
CREATE VIEW run_functions AS
SELECT m.run_id AS run_id,
       substr(m.region, 4) AS function,
       MAX(CASE WHEN m.name = 'instructions' AND m.source = 'sim' THEN m.value END) AS instructions,
       MAX(CASE WHEN m.name = 'flops' AND m.source = 'sim' THEN m.value END) AS flops,
       MAX(CASE WHEN m.name = 'bytes_l1' AND m.source = 'sim' THEN m.value END) AS bytes_l1,
       MAX(CASE WHEN m.name = 'bytes_dram' AND m.source = 'sim' THEN m.value END) AS bytes_dram,
       MAX(CASE WHEN m.name = 'time_s' THEN m.value END) AS time_s,
       -- Where its code is: the file most of its executed instructions came from, and the first
       -- and last line executed there (debug info; NULL without it).
       MAX(CASE WHEN m.name = 'line_first' THEN m.note END) AS file,
       MAX(CASE WHEN m.name = 'line_first' THEN m.value END) AS line_first,
       MAX(CASE WHEN m.name = 'line_last' THEN m.value END) AS line_last,
       -- The object file and how it was named (symbol or address), with its share of the run's
       -- instructions.
       MAX(CASE WHEN m.name = 'instructions' AND m.source = 'sim' THEN m.note END) AS named
FROM metrics m
WHERE m.region LIKE 'fn:%'
GROUP BY m.run_id, m.region;
