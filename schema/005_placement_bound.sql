-- The binding ceiling's kind on its own ("dram bandwidth", "compute"), so that nothing has to
-- cut it out of the binding text ("dram bandwidth (dram_triad)") to decide or display it.
ALTER TABLE placements ADD COLUMN bound TEXT;
-- 1 when the binding level's bytes were the model's compulsory bytes alone (a lower bound on
-- the traffic: the side it found is not measured); NULL for runs stored before this column.
ALTER TABLE placements ADD COLUMN bytes_compulsory_only INTEGER;
-- Why the run stood above its roof (percent_of_roof > 100); NULL otherwise.
ALTER TABLE placements ADD COLUMN note TEXT;

-- Runs stored before this column: their binding text is the kind, then the ceiling in brackets.
UPDATE placements SET bound = substr(binding, 1, instr(binding, ' (') - 1)
WHERE binding IS NOT NULL AND instr(binding, ' (') > 0;
