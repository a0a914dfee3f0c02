-- The binding ceiling's kind on its own ("dram bandwidth", "compute"), so that nothing has to
-- cut it out of the binding text ("dram bandwidth (dram_triad)") to decide or display it.
ALTER TABLE placements ADD COLUMN bound TEXT;

-- Runs stored before this column: their binding text is the kind, then the ceiling in brackets.
UPDATE placements SET bound = substr(binding, 1, instr(binding, ' (') - 1)
WHERE binding IS NOT NULL AND instr(binding, ' (') > 0;
