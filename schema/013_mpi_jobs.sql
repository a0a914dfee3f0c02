-- rprof store, schema version 13: MPI jobs. A run measured as one rank of a parallel job
-- (mpirun/srun started rprof once per rank) knows its job, its rank and where it ran; every run
-- of a job shares the job id: the launcher's (pmix:NAMESPACE, slurm:JOB.STEP) or, where the
-- launcher gives none, the one `rprof mpirun` made and passed on (rprof:32 hex digits).
-- `rprof job ID` reads a job back from these columns; NULL everywhere for a run of no job.

ALTER TABLE runs ADD COLUMN job_id TEXT;
ALTER TABLE runs ADD COLUMN job_rank INTEGER;        -- 0-based rank in the job's world
ALTER TABLE runs ADD COLUMN job_size INTEGER;        -- ranks in the job's world
ALTER TABLE runs ADD COLUMN job_local_rank INTEGER;  -- rank among those on its node; NULL: unknown
ALTER TABLE runs ADD COLUMN job_node INTEGER;        -- the launcher's node index; NULL: unknown
ALTER TABLE runs ADD COLUMN job_host TEXT;           -- the node's hostname
ALTER TABLE runs ADD COLUMN job_launcher TEXT;       -- openmpi | pmix | hydra | slurm | rprof:
                                                     -- which environment named the rank
CREATE INDEX runs_job ON runs(job_id, job_rank);
