-- rprof store, schema version 22: the batch scheduler's names for a rank's job. The job id of
-- 013 is the one its ranks share (often rprof's own, or PMIx's namespace); what squeue, sacct
-- and the scheduler's logs call the job is kept beside it, whatever launcher named the rank, so
-- that `rprof job 812` finds Slurm job 812. NULL where no scheduler ran the job.

ALTER TABLE runs ADD COLUMN job_scheduler TEXT;          -- slurm | pbs | lsf
ALTER TABLE runs ADD COLUMN job_scheduler_job_id TEXT;   -- SLURM_JOB_ID, PBS_JOBID, LSB_JOBID
ALTER TABLE runs ADD COLUMN job_scheduler_step_id TEXT;  -- SLURM_STEP_ID: the ranks' srun step
CREATE INDEX runs_job_scheduler ON runs(job_scheduler_job_id);
