-- rprof store, schema version 7: every bandwidth ceiling in both byte conventions.
-- `value` stays what the kernels load and store (compulsory bytes, as STREAM and likwid-bench
-- count); bytes_per_element and traffic_bytes_per_element are the pattern's bytes per element in
-- each convention, and traffic_value = value x traffic_bytes_per_element / bytes_per_element is
-- the same measurement as actual traffic (write-allocate included; non-temporal stores as such;
-- at L1 the instructions' own bytes). NULL for compute ceilings.

ALTER TABLE ceilings ADD COLUMN bytes_per_element INTEGER;
ALTER TABLE ceilings ADD COLUMN traffic_bytes_per_element INTEGER;
ALTER TABLE ceilings ADD COLUMN traffic_value REAL;

-- Ceilings stored before this version: the factors follow from the pattern alone.
UPDATE ceilings SET
  bytes_per_element = CASE pattern WHEN 'load' THEN 8 WHEN 'copy' THEN 16 WHEN 'triad' THEN 24
                                   WHEN 'copy_nt' THEN 16 END,
  traffic_bytes_per_element = CASE
    WHEN level = 'l1' THEN CASE pattern WHEN 'load' THEN 8 WHEN 'copy' THEN 16
                                        WHEN 'triad' THEN 24 WHEN 'copy_nt' THEN 16 END
    ELSE CASE pattern WHEN 'load' THEN 8 WHEN 'copy' THEN 24 WHEN 'triad' THEN 32
                      WHEN 'copy_nt' THEN 16 END
  END
WHERE kind = 'bandwidth';
UPDATE ceilings SET traffic_value = value * traffic_bytes_per_element / bytes_per_element
WHERE kind = 'bandwidth' AND bytes_per_element > 0;
