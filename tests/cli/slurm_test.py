"""rprof under Slurm end to end, on a one-node cluster of the test's own (slurm_cluster.py: its
own munged, slurmctld and slurmd in a temporary folder, on free ports): a batch script's rprof
is a plain run, not a rank of the allocation; `rprof srun` prints one job table and stores each
rank with the Slurm job id; `srun rprof` stores each rank with its rank, local rank and node;
`rprof --counters sim srun` is refused before Slurm starts anything.

Run as `python3 slurm_test.py PATH/TO/rprof`, with RPROF_CLI_TARGETS the build folder of
tests/cli_targets (triad_fp64, mpi_fixture). Exits 77 (skip) with the reason where Slurm or
munge is not installed (Debian: slurm-wlm and munge, installed by scripts/bootstrap) or the
daemons cannot start here. Open MPI's ranks started by srun need Slurm's PMIx plugin
(--mpi=pmix): the tests that run the MPI fixture skip without it.
"""

import json
import os
import re
import subprocess
import sys
import textwrap
import unittest

import rprof_harness
from rprof_harness import RprofTestCase
from slurm_cluster import SlurmCluster, Unavailable

TARGETS = os.environ.get("RPROF_CLI_TARGETS", "")
SERIAL = os.path.join(TARGETS, "triad_fp64")
FIXTURE = os.environ.get("RPROF_MPI_FIXTURE") or os.path.join(TARGETS, "mpi_fixture")
# Small: a rank's run is well under a second, the whole file under two minutes on two cores.
FIXTURE_ARGS = ["--elements", "100000", "--reps", "2"]
PYTHON = "/usr/bin/python3"

# Set when the class's cluster could not start: main() then exits 77 with it.
SKIP_REASON = None


class SlurmTest(RprofTestCase):

    @classmethod
    def setUpClass(cls):
        global SKIP_REASON
        cls.cluster = SlurmCluster()
        try:
            cls.cluster.__enter__()
        except Unavailable as e:
            SKIP_REASON = str(e)
            raise unittest.SkipTest(SKIP_REASON)
        print(f"slurm_test: a one-node cluster ({cls.cluster.host}, {cls.cluster.cpus} CPUs) "
              f"started in {cls.cluster.start_s:.1f} s; srun --mpi types: "
              f"{' '.join(cls.cluster.mpi_plugins)}", file=sys.stderr, flush=True)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()

    def setUp(self):
        super().setUp()
        self.env = self.cluster.env(self.env)
        if rprof_harness.SANITIZED:
            # As in mpi_test.py: Open MPI keeps memory until exit in components it unloads, which
            # LeakSanitizer would report as the fixture's leak (it inherits rprof's environment).
            options = [o for o in self.env.get("ASAN_OPTIONS", "").split(":")
                       if o and not o.startswith("detect_leaks=")]
            self.env["ASAN_OPTIONS"] = ":".join(options + ["detect_leaks=0"])

    # -- helpers ----------------------------------------------------------------------------

    def need_fixture(self):
        if not os.access(FIXTURE, os.X_OK):
            self.skipTest("the MPI fixture was not built: meson found no MPI "
                          "(Debian: libopenmpi-dev)")
        if not self.cluster.has_mpi("pmix"):
            self.skipTest("this Slurm has no PMIx plugin (mpi_pmix.so): Open MPI's ranks "
                          "cannot start under srun")

    def run_cmd(self, argv, timeout=120):
        """Runs a Slurm client (sbatch, srun) in the test's folder, where a batch job starts."""
        proc = subprocess.run(argv, env=self.env, cwd=self.tmp, capture_output=True, text=True,
                              timeout=timeout)
        return rprof_harness.Result(argv, proc.returncode, proc.stdout, proc.stderr)

    def slurm_jobs(self):
        """{job id: name} of every job this cluster has run (ended ones stay for MinJobAge)."""
        proc = subprocess.run(["squeue", "--states=all", "-h", "-o", "%i %j"], env=self.env,
                              capture_output=True, text=True, timeout=30)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return dict(line.split(None, 1) for line in proc.stdout.splitlines() if line.strip())

    def slurm_job_id(self, name):
        ids = [i for i, n in self.slurm_jobs().items() if n == name]
        self.assertEqual(len(ids), 1, self.slurm_jobs())
        return ids[0]

    def sbatch(self, name, body):
        """Runs a batch script of one task to its end (sbatch --wait); returns the sbatch
        result, the script's output and the Slurm job id."""
        script = self.path(f"{name}.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n" + textwrap.dedent(body))
        out = self.path(f"{name}.out")
        result = self.run_cmd(["sbatch", "--wait", "-n", "1", "-J", name, "-o", out, script])
        submitted = re.search(r"^Submitted batch job (\d+)$", result.stdout, re.M)
        self.assertTrue(submitted, result)
        with open(out) if os.path.exists(out) else open(os.devnull) as f:
            output = f.read()
        return result, output, submitted.group(1)

    def shown(self, run_id):
        return json.loads(self.rprof_ok("show", str(run_id), "--format", "json").stdout)

    def run_ids(self):
        return [r[0] for r in self.query("SELECT id FROM runs ORDER BY id")]

    def assertPlainRun(self, run_id, context):
        shown = self.shown(run_id)
        self.assertIsNone(shown.get("job"), (context, shown.get("job")))
        self.assertEqual(self.query("SELECT job_id, job_rank FROM runs WHERE id = ?", (run_id,)),
                         [(None, None)], context)
        return shown

    # -- a batch script's rprof is a plain run ----------------------------------------------

    def test_batch_script_rprof_with_sim_is_a_plain_run(self):
        # A batch script is the allocation's one task (SLURM_PROCID=0, SLURM_NTASKS=1), not a
        # rank srun started: its rprof measures one process, sim's replay included.
        result, output, _ = self.sbatch("serial", f"""\
            exec {rprof_harness.RPROF} --db {self.db} --counters sim -q {SERIAL} 20000 2
            """)
        context = f"{result}\n--- the batch script's output:\n{output}"
        if "built without the sim source" in output or "valgrind not found" in output:
            self.skipTest(f"no sim source here: {output.strip()[-300:]}")
        self.assertEqual(result.returncode, 0, context)
        ids = self.run_ids()
        self.assertEqual(len(ids), 1, context)
        shown = self.assertPlainRun(ids[0], context)
        self.assertIn("sim", shown["sources"], context)
        sim = {name: v["sim"]["value"] for name, v in shown["metrics"].items() if "sim" in v}
        self.assertGreaterEqual(sim.get("flops_dp", 0), 2 * 20000 * 2, (context, sim))
        self.assertEqual(shown["status"], "ok", context)

    def test_batch_script_rprof_of_python_is_a_plain_run(self):
        result, output, _ = self.sbatch("python", f"""\
            exec {rprof_harness.RPROF} --db {self.db} -q {PYTHON} -c 'print(sum(range(10**5)))'
            """)
        context = f"{result}\n--- the batch script's output:\n{output}"
        self.assertEqual(result.returncode, 0, context)
        self.assertIn(str(sum(range(10**5))), output, context)
        ids = self.run_ids()
        self.assertEqual(len(ids), 1, context)
        shown = self.assertPlainRun(ids[0], context)
        self.assertEqual(shown["status"], "ok", context)

    # -- rprof srun: one job table, the Slurm job id on each rank ---------------------------

    def test_rprof_srun_prints_one_job_table_and_stores_the_slurm_job_id(self):
        self.need_fixture()
        result = self.rprof("srun", "--mpi=pmix", "-J", "rprof_srun", "-n", "2", FIXTURE,
                            *FIXTURE_ARGS)
        self.assertEqual(result.returncode, 0, result)
        console = result.stdout + result.stderr
        # Each part a subtest of its own: one that fails does not hide what the others find.
        with self.subTest("one job table on the console"):
            # Not a report per rank: the job's header line once, the whole console short
            # enough to read for 2 ranks.
            headers = re.findall(r"^job \S+: \d+ of \d+ ranks stored", console, re.M)
            self.assertEqual(len(headers), 1, console)
            self.assertLessEqual(len(console.splitlines()), 30, console)

        rows = self.query("SELECT id, job_id, job_rank, job_size FROM runs ORDER BY job_rank")
        self.assertEqual([r[2] for r in rows], [0, 1], rows)
        self.assertEqual({r[3] for r in rows}, {2}, rows)
        self.assertEqual(len({r[1] for r in rows}), 1, rows)
        job_id = rows[0][1]

        with self.subTest("each rank records the Slurm job id"):
            # The id squeue reports for the job srun made, beside the job id rprof srun made
            # (which stays the job id), and the srun step the ranks ran as.
            slurm_id = self.slurm_job_id("rprof_srun")
            self.assertRegex(slurm_id, r"^\d+$")
            for run_id, *_ in rows:
                job = self.shown(run_id)["job"]
                self.assertIsNotNone(job, run_id)
                self.assertEqual(job["job_id"], job_id)
                self.assertEqual(job.get("scheduler"), "slurm", job)
                self.assertEqual(job.get("scheduler_job_id"), slurm_id, job)
                self.assertRegex(job.get("scheduler_step_id") or "", r"^\d+$", job)

        with self.subTest("rprof job lists the job"):
            listed = self.rprof("job")
            self.assertEqual(listed.returncode, 0, listed)
            self.assertIn(job_id, listed.stdout, listed)

        with self.subTest("rprof job SLURM_JOB_ID finds it"):
            by_slurm_id = self.rprof("job", self.slurm_job_id("rprof_srun"), "--format", "json")
            self.assertEqual(by_slurm_id.returncode, 0, by_slurm_id)
            self.assertEqual(json.loads(by_slurm_id.stdout)["job_id"], job_id, by_slurm_id)

        shown = json.loads(self.rprof_ok("job", job_id, "--format", "json").stdout)
        self.assertEqual(shown["ranks_stored"], 2)
        self.assertTrue(shown["complete"], shown)

    # -- srun rprof: each rank an rprof of its own ------------------------------------------

    def test_srun_rprof_stores_each_rank_with_rank_local_rank_and_node(self):
        self.need_fixture()
        result = self.run_cmd(["srun", "--mpi=pmix", "-J", "srun_rprof", "-n", "2",
                               rprof_harness.RPROF, "--db", self.db, FIXTURE, *FIXTURE_ARGS])
        self.assertEqual(result.returncode, 0, result)
        # No rprof watches this job: rank 0 prints its one table, once both runs are stored.
        self.assertEqual(result.stderr.count(" ranks stored, on "), 1, result.stderr)
        self.assertIn("2 of 2 ranks stored", result.stderr)
        self.assertNotIn("rank 1 of 2 of job", result.stderr)
        rows = self.query("SELECT job_id, job_rank, job_size, job_local_rank, job_node, job_host,"
                          " status FROM runs ORDER BY job_rank")
        self.assertEqual([r[1] for r in rows], [0, 1], (rows, result))
        self.assertEqual(len({r[0] for r in rows}), 1, rows)
        self.assertTrue(rows[0][0], rows)
        self.assertEqual({r[2] for r in rows}, {2}, rows)
        self.assertEqual(sorted(r[3] for r in rows if r[3] is not None), [0, 1], rows)
        self.assertEqual([r[4] for r in rows], [0, 0], rows)  # one node: SLURM_NODEID 0
        self.assertEqual({r[5] for r in rows}, {os.uname().nodename}, rows)
        self.assertEqual({r[6] for r in rows}, {"ok"}, rows)
        for run_id in self.run_ids():
            job = self.shown(run_id)["job"]
            for key in ("rank", "local_rank", "node", "host"):
                self.assertNotIn(job.get(key), (None, ""), (key, job))

    # -- rprof --counters sim srun: refused before Slurm starts anything --------------------

    def test_sim_through_rprof_srun_is_refused_before_the_job_starts(self):
        program = FIXTURE if os.access(FIXTURE, os.X_OK) else "/bin/true"
        before = self.slurm_jobs()
        result = self.rprof("--counters", "sim", "srun", "-n", "2", program)
        self.assertError(result, 2, "a rank cannot be executed again outside its launcher")
        self.assertEqual(self.slurm_jobs(), before, "srun started a job")
        if os.path.exists(self.db):
            self.assertEqual(self.scalar("SELECT count(*) FROM runs"), 0)


def main():
    # rprof_harness.main(), with a cluster that cannot start here a skip (exit 77), as meson
    # counts one.
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} PATH/TO/rprof [unittest options]")
    rprof_harness.RPROF = os.path.abspath(sys.argv.pop(1))
    if not os.access(rprof_harness.RPROF, os.X_OK):
        sys.exit(f"{rprof_harness.RPROF}: not an executable")
    try:
        from slurm_cluster import check_installed
        check_installed()
    except Unavailable as e:
        print(f"SKIP: {e}")
        sys.exit(77)
    program = unittest.main(module="__main__", verbosity=2, exit=False)
    if SKIP_REASON:
        print(f"SKIP: {SKIP_REASON}")
        sys.exit(77)
    sys.exit(0 if program.result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
