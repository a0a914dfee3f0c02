"""MPI jobs end to end under a real mpirun (Open MPI) on a small MPI program with markers
(tests/cli_targets/mpi_fixture.c): each rank an rprof of its own, one job id for all, the job
read back by `rprof job`, ranks spread over two databases (two "nodes") and merged, a crashing
rank, `rprof mpirun` handing the launcher rprof as the ranks' wrapper.

Exits 77 (skip) with the reason when mpirun or the fixture (built only where meson finds MPI)
is missing. On our two cores every launch needs --oversubscribe; as root, --allow-run-as-root.
Under the sanitizer build everything here runs too: rprof is the ASan binary mpirun starts, the
fixture links librprof-marker as any user's program does (so it is instrumented too), and its
crashing rank calls abort(), which ASan leaves a plain SIGABRT. Leak checking alone is off here
(detect_leaks=0, for rprof and the fixture alike, as the fixture inherits rprof's environment):
Open MPI keeps memory until exit in threads of its own, allocated from components it unloads at
MPI_Finalize, so LeakSanitizer reports it as the fixture's leak with stacks no suppression can
match, and the rank would end with status 86. The other suites check rprof's leaks.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import rprof_harness
from fixtures import import_run_json
from rprof_harness import RprofTestCase

FIXTURE = os.environ.get("RPROF_MPI_FIXTURE", "")
MPIRUN = shutil.which("mpirun")
# Open MPI refuses root without it and more ranks than cores without --oversubscribe.
LAUNCH = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
# Per rank: 1e6 elements x 20 passes of the triad, 2 FLOPs and 24 bytes an element.
DECLARED = ["--flops", str(2 * 1_000_000 * 20), "--bytes", str(24 * 1_000_000 * 20)]

# A quick profile of this machine, measured once for the tests that place a job.
PROFILE_DB = None


def skip_unless_mpi():
    if not MPIRUN:
        print("mpirun is not installed (Debian: openmpi-bin, installed by scripts/bootstrap)")
        sys.exit(77)
    if not FIXTURE or not os.access(FIXTURE, os.X_OK):
        print("the MPI fixture was not built: meson found no MPI (Debian: libopenmpi-dev)")
        sys.exit(77)
    probe = subprocess.run([MPIRUN] + LAUNCH + ["-n", "1", "true"], capture_output=True,
                           text=True, timeout=120)
    if probe.returncode != 0:
        print(f"mpirun cannot start a process here: {probe.stderr.strip()[-400:]}")
        sys.exit(77)


class MpiJobTest(RprofTestCase):

    def setUp(self):
        super().setUp()
        if rprof_harness.SANITIZED:
            options = [o for o in self.env.get("ASAN_OPTIONS", "").split(":")
                       if o and not o.startswith("detect_leaks=")]
            self.env["ASAN_OPTIONS"] = ":".join(options + ["detect_leaks=0"])

    @classmethod
    def setUpClass(cls):
        global PROFILE_DB
        if PROFILE_DB is None:
            cls.profile_dir = tempfile.mkdtemp(prefix="rprof-mpi-profile-")
            PROFILE_DB = os.path.join(cls.profile_dir, "profile.db")
            proc = subprocess.run([rprof_harness.RPROF, "--db", PROFILE_DB, "machine", "measure",
                                   "--quick"], capture_output=True, text=True, timeout=300)
            if proc.returncode != 0:
                raise RuntimeError(f"machine measure --quick failed: {proc.stderr[-2000:]}")

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "profile_dir", None):
            shutil.rmtree(cls.profile_dir, ignore_errors=True)

    def mpirun(self, n, *words, timeout=180):
        proc = subprocess.run([MPIRUN] + LAUNCH + ["-n", str(n)] + list(words), env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        return proc

    def with_profile(self, path=None):
        shutil.copy(PROFILE_DB, path or self.db)

    def job_ids(self, db=None):
        return [r[0] for r in self.query(
            "SELECT DISTINCT job_id FROM runs WHERE job_id IS NOT NULL", db=db)]

    def test_sim_on_ranks_is_refused_never_counted_from_an_aborted_replay(self):
        # Issue 24: each rank's sim replay ran outside the launcher and died in MPI_Init, yet
        # every rank was stored ok with flops 2 (sim) and the job placed at 0 %. A rank cannot
        # be executed again outside its job: --counters sim refuses before anything runs.
        proc = self.mpirun(2, rprof_harness.RPROF, "--db", self.db, "--counters", "sim",
                           FIXTURE, "--elements", "1000", "--reps", "1")
        self.assertNotEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("runs as a rank of a parallel job (openmpi)", proc.stderr)
        self.assertIn("cannot be executed again outside its launcher", proc.stderr)
        self.assertIn("count the job with --counters pmu", proc.stderr)
        self.assertNotIn("a second time, under valgrind", proc.stderr)
        if os.path.exists(self.db):
            self.assertEqual(self.query("SELECT count(*) FROM runs")[0][0], 0)
        # Each rank's rprof exits 3 (environment), which mpirun passes on.
        self.assertEqual(proc.returncode, 3, proc.stderr)

    def test_four_ranks_store_four_runs_of_one_job_and_the_job_view(self):
        self.with_profile()
        proc = self.mpirun(4, rprof_harness.RPROF, "--db", self.db, "-q", *DECLARED, FIXTURE)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = self.query("SELECT job_id, job_rank, job_size, job_local_rank, job_host, status,"
                          " job_launcher FROM runs ORDER BY job_rank")
        self.assertEqual([r[1] for r in rows], [0, 1, 2, 3])
        self.assertEqual(len({r[0] for r in rows}), 1, rows)
        self.assertTrue(rows[0][0].startswith("pmix:"), rows)
        self.assertEqual({r[2] for r in rows}, {4})
        self.assertEqual(sorted(r[3] for r in rows), [0, 1, 2, 3])
        self.assertEqual({r[4] for r in rows}, {os.uname().nodename})
        self.assertEqual({r[5] for r in rows}, {"ok"})
        self.assertEqual({r[6] for r in rows}, {"openmpi"})
        job_id = rows[0][0]

        job = json.loads(self.rprof_ok("job", job_id, "--format", "json").stdout)
        self.assertEqual(job["job_id"], job_id)
        self.assertEqual(job["size"], 4)
        self.assertEqual(job["ranks_stored"], 4)
        self.assertTrue(job["complete"])
        self.assertIsNone(job["incomplete_reason"])
        self.assertEqual([r["rank"] for r in job["ranks"]], [0, 1, 2, 3])
        times = [r["time_s"] for r in job["ranks"]]
        for r in job["ranks"]:
            self.assertEqual(r["status"], "ok")
            self.assertGreater(r["time_s"], 0)
            # Declared FLOPs over the rank's own time.
            self.assertAlmostEqual(r["gflops"], 4e7 / r["time_s"] / 1e9, delta=1e-9)
            self.assertIn("of its roof", r["verdict"])
        stats = {s["metric"]: s for s in job["stats"]}
        t = stats["time_s"]
        self.assertEqual(t["count"], 4)
        self.assertAlmostEqual(t["sum"], sum(times), places=9)
        self.assertAlmostEqual(t["max"], max(times), places=12)
        self.assertAlmostEqual(t["min"], min(times), places=12)
        self.assertLessEqual(t["min"], t["p25"])
        self.assertLessEqual(t["p25"], t["median"])
        self.assertLessEqual(t["median"], t["p75"])
        self.assertLessEqual(t["p75"], t["max"])
        self.assertEqual(stats["gflops"]["count"], 4)
        imbalance = job["imbalance"]
        self.assertAlmostEqual(imbalance["max_over_mean"], max(times) / (sum(times) / 4),
                               places=9)
        self.assertEqual(imbalance["slowest_rank"], times.index(max(times)))
        # The job: 4 x 4e7 FLOPs over the slowest rank's time, on this one node's roof.
        placement = job["placement"]
        self.assertTrue(placement["placed"], placement)
        self.assertAlmostEqual(placement["gflops"], 4 * 4e7 / max(times) / 1e9, delta=1e-9)
        self.assertIn("of its roof", placement["verdict"])
        self.assertEqual(len(placement["nodes"]), 1)
        self.assertEqual(placement["nodes"][0]["ranks"], 4)
        self.assertIsNotNone(placement["nodes"][0]["profile_id"])
        regions = {r["region"]: r for r in job["regions"]}
        self.assertEqual(set(regions), {"triad", "allreduce"})
        self.assertEqual(regions["triad"]["ranks"], 4)
        self.assertGreaterEqual(regions["triad"]["imbalance"], 1.0)
        self.assertIsNotNone(regions["triad"]["gflops"])  # declared by the markers

        # history --job lists that job's runs alone; the text view says the same.
        self.rprof_ok("run", *rprof_harness.FAST_RUN, "triad")
        listed = json.loads(self.rprof_ok("history", "--job", job_id, "--format", "json").stdout)
        self.assertEqual(sorted(r["job"]["rank"] for r in listed), [0, 1, 2, 3])
        text = self.rprof_ok("job", job_id.split(":")[1]).stdout  # a unique part of the id
        self.assertIn(f"job {job_id}: 4 of 4 ranks stored, on 1 node, complete", text)
        self.assertIn("load imbalance: max/mean time", text)

    def test_each_rank_has_its_own_hot_functions(self):
        # Issue 28: each rank's rprof samples its own rank's executions; its run holds its hot
        # functions (the time profile alone: sim does not replay a rank). The triad is written
        # in main: main holds most of each rank's time.
        proc = self.mpirun(2, rprof_harness.RPROF, "--db", self.db, "-q", FIXTURE,
                           "--elements", "2000000", "--reps", "30")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = self.query("SELECT r.job_rank, f.function, f.time_s FROM run_functions f"
                          " JOIN runs r ON r.id = f.run_id ORDER BY r.job_rank")
        by_rank = {}
        for rank, function, time_s in rows:
            by_rank.setdefault(rank, {})[function] = time_s
        self.assertEqual(sorted(by_rank), [0, 1], rows)
        for rank, functions in by_rank.items():
            self.assertIn("main", functions, (rank, functions))
            self.assertGreater(functions["main"], 0, (rank, functions))
        # Each rank's own: the JSON of rank 1's run has its functions, time beside a reason.
        run_id = self.query("SELECT id FROM runs WHERE job_rank = 1")[0][0]
        shown = json.loads(self.rprof_ok("show", str(run_id), "--format", "json").stdout)
        main = shown["functions"]["main"]
        self.assertIn("cpu-clock samples", main["time_s"]["clock"]["note"])
        self.assertIn("no source here counts per function", main["time_s"]["clock"]["note"])

    def test_a_crashing_rank_is_stored_crashed_and_the_job_incomplete(self):
        self.with_profile()
        # The others have ended when rank 1 aborts (a second after MPI_Finalize); a longer
        # SIGKILL timeout still lets a rank loaded down by a busy machine store its run.
        proc = self.mpirun(4, "--mca", "odls_base_sigkill_timeout", "10", rprof_harness.RPROF,
                           "--db", self.db, "-q", *DECLARED, FIXTURE, "--crash-rank", "1")
        self.assertNotEqual(proc.returncode, 0, proc.stderr)
        rows = dict((r[0], r[1:]) for r in self.query(
            "SELECT job_rank, status, signal FROM runs ORDER BY job_rank"))
        self.assertEqual(sorted(rows), [0, 1, 2, 3])
        self.assertEqual(rows[1], ("crashed", 6))  # abort(): SIGABRT
        for rank in (0, 2, 3):
            self.assertEqual(rows[rank][0], "ok")
        job = json.loads(self.rprof_ok("job", self.job_ids()[0], "--format", "json").stdout)
        self.assertFalse(job["complete"])
        self.assertIn("rank 1 crashed (signal 6)", job["incomplete_reason"])
        self.assertFalse(job["placement"]["placed"])
        self.assertIn("the job is incomplete", job["placement"]["reason"])

    def test_rprof_mpirun_hands_the_launcher_rprof_as_each_ranks_wrapper(self):
        # --mca takes two words: the program is found after them.
        result = self.rprof("mpirun", *LAUNCH, "--mca", "btl_base_warn_component_unused", "0",
                            "-n", "2", FIXTURE, "--reps", "2")
        self.assertEqual(result.returncode, 0, result)
        rows = self.query("SELECT target, job_id, job_rank FROM runs ORDER BY job_rank")
        # Two runs of the program, one per rank, not one run of mpirun summing them.
        self.assertEqual([r[2] for r in rows], [0, 1], rows)
        self.assertEqual({r[0] for r in rows}, {os.path.realpath(FIXTURE)})
        job_id = rows[0][1]
        self.assertTrue(job_id.startswith("rprof:"), job_id)
        self.assertEqual(rows[1][1], job_id)
        self.assertIn(f"this table again: rprof job {job_id}", result.stderr)
        # The fixture's own arguments reached it (--reps 2: 2 calls of the triad region).
        calls = self.scalar("SELECT value FROM metrics WHERE region = 'triad' AND name = 'calls'")
        self.assertEqual(calls, 2)

    def test_a_job_prints_one_table_not_a_report_per_rank(self):
        # Issue 37: N ranks printed N full reports (about 110 lines each); likwid-mpirun prints
        # one table. Through rprof's launcher, and from rank 0 under a plain mpirun.
        self.with_profile()
        for words in (["mpirun", *LAUNCH, "-n", "2"], None):
            with self.subTest(launcher="rprof mpirun" if words else "mpirun rprof"):
                if words:
                    result = self.rprof(*DECLARED, *words, FIXTURE, "--reps", "2")
                else:
                    result = self.mpirun(2, rprof_harness.RPROF, "--db", self.db, *DECLARED,
                                         FIXTURE, "--reps", "2")
                self.assertEqual(result.returncode, 0, result.stderr)
                job_id = self.query("SELECT job_id FROM runs ORDER BY id DESC LIMIT 1")[0][0]
                lines = result.stderr.splitlines()
                self.assertLessEqual(len(lines), 30, result.stderr)
                self.assertEqual(sum(1 for l in lines if l.startswith(f"job {job_id}: ")), 1,
                                 result.stderr)
                self.assertIn("2 of 2 ranks stored", result.stderr)
                self.assertIn("load imbalance: max/mean time", result.stderr)
                self.assertIn("job verdict: ", result.stderr)
                # No rank's own report: its heading names the rank.
                self.assertNotIn("rank 0 of 2 of job", result.stderr)
                self.assertNotIn("rank 1 of 2 of job", result.stderr)

    def test_verbose_and_output_files_keep_each_ranks_report(self):
        self.with_profile()
        out = self.path("job.txt")
        result = self.rprof(*DECLARED, "-o", out, "mpirun", *LAUNCH, "-n", "2", FIXTURE,
                            "--reps", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        job_id = self.query("SELECT job_id FROM runs LIMIT 1")[0][0]
        with open(out) as f:
            self.assertIn(f"job {job_id}: 2 of 2 ranks stored", f.read())
        for rank in (0, 1):
            with open(f"{out}.{rank}") as f:
                self.assertIn(f"rank {rank} of 2 of job {job_id}", f.read())
        result = self.rprof("-v", *DECLARED, "mpirun", *LAUNCH, "-n", "2", FIXTURE, "--reps", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("rank 0 of 2 of job", result.stderr)
        self.assertIn("rank 1 of 2 of job", result.stderr)
        self.assertEqual(result.stderr.count(" ranks stored, on "), 1, result.stderr)
        # -q: the job's id alone.
        result = self.rprof("-q", *DECLARED, "mpirun", *LAUNCH, "-n", "2", FIXTURE, "--reps", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        newest = self.query("SELECT job_id FROM runs ORDER BY id DESC LIMIT 1")[0][0]
        self.assertEqual(result.stderr.strip().splitlines()[-1], newest, result.stderr)

    def test_rank_advice_never_names_the_sim_it_refuses(self):
        # Issue 37: a rank's verdict advised --counters sim, which every rank refuses.
        self.with_profile()
        result = self.rprof("mpirun", *LAUNCH, "-n", "2", FIXTURE, "--reps", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("count with --counters sim", result.stderr)
        self.assertIn("sim counts one process alone, without the launcher", result.stderr)
        for (run_id,) in self.query("SELECT id FROM runs"):
            shown = self.rprof_ok("show", str(run_id)).stdout
            self.assertNotIn("count with --counters sim", shown)
            self.assertNotIn("run --counters sim\n", shown)

    def test_ranks_stopped_by_a_failing_rank_are_stored_interrupted(self):
        # Rank 1 aborts before its work; mpirun stops the others with SIGTERM, which each
        # rank's rprof passes on to its program, then stores the run it measured.
        result = self.rprof("-q", "mpirun", *LAUNCH, "-n", "4", FIXTURE, "--reps", "400",
                            "--crash-early", "1")
        self.assertExit(result, 1, "mpirun exited with status")
        rows = dict((r[0], r[1:]) for r in self.query(
            "SELECT job_rank, status, signal FROM runs ORDER BY job_rank"))
        self.assertEqual(rows[1], ("crashed", 6), rows)
        self.assertEqual(sorted(rows), [0, 1, 2, 3], rows)
        for rank in (0, 2, 3):
            self.assertIn(rows[rank][0], ("interrupted", "ok"), rows)
        job = json.loads(self.rprof_ok("job", self.job_ids()[0], "--format", "json").stdout)
        self.assertFalse(job["complete"])
        self.assertIn("rank 1 crashed (signal 6)", job["incomplete_reason"])

    def test_sim_through_rprof_mpirun_is_refused_before_the_job_starts(self):
        # Issue 37: `rprof --counters sim srun …` started the job, each rank refused sim, and
        # rprof exited 1 saying the ranks' runs were stored (none were). Refused first, exit 2.
        marker = self.path("started")
        result = self.rprof("--counters", "sim", "mpirun", *LAUNCH, "-n", "2", "/bin/sh", "-c",
                            f"touch {marker}")
        self.assertError(result, 2, "a rank cannot be executed again outside its launcher")
        self.assertIn("--counters pmu", result.stderr)
        self.assertFalse(os.path.exists(marker), "the job was started")
        self.assertNotIn("rprof: job ", result.stderr)

    def test_rprof_mpirun_without_a_program_is_a_usage_error(self):
        result = self.rprof("mpirun", "-n", "2")
        self.assertError(result, 2, "no program after the launcher's options")

    def split_over_two_nodes(self, n0, n1, second_host=None):
        """4 ranks, ranks 0-1 storing in n0, ranks 2-3 in n1: two nodes' databases. With
        `second_host`, ranks 2-3 run under that host name (a UTS namespace of their own), so
        their machine is another one."""
        script = self.path("rank.sh")
        with open(script, "w") as f:
            f.write('#!/bin/sh\n'
                    'if [ "$OMPI_COMM_WORLD_RANK" -lt 2 ]; then db="$N0"; else db="$N1"; fi\n'
                    'if [ "$OMPI_COMM_WORLD_RANK" -ge 2 ] && [ -n "$SECOND_HOST" ]; then\n'
                    '  exec unshare -u sh -c \'hostname "$SECOND_HOST" && exec "$@"\' sh \\\n'
                    '    "$RPROF" --db "$db" -q "$@"\n'
                    'fi\n'
                    'exec "$RPROF" --db "$db" -q "$@"\n')
        os.chmod(script, 0o755)
        self.env.update({"N0": n0, "N1": n1, "RPROF": rprof_harness.RPROF,
                         "SECOND_HOST": second_host or ""})
        proc = self.mpirun(4, script, *DECLARED, FIXTURE)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_two_nodes_databases_merged_twice_store_each_run_once(self):
        n0, n1 = self.path("node0.db"), self.path("node1.db")
        self.with_profile(n0)
        self.split_over_two_nodes(n0, n1)
        job_id = self.job_ids(n0)[0]
        half = json.loads(self.rprof_ok("--db", n0, "job", job_id, "--format", "json",
                                        db=False).stdout)
        self.assertFalse(half["complete"])
        self.assertIn("ranks 2, 3 not stored", half["incomplete_reason"])

        merged = self.path("merged.db")
        first = self.rprof_ok("--db", merged, "merge", n0, n1, db=False)
        self.assertIn(f"{n0}: 2 runs stored, 0 already stored; 1 profiles stored", first.stdout)
        self.assertIn(f"{n1}: 2 runs stored, 0 already stored", first.stdout)
        second = self.rprof_ok("--db", merged, "merge", n0, n1, db=False)
        self.assertIn(f"{n0}: 0 runs stored, 2 already stored; 0 profiles stored, 1 already",
                      second.stdout)
        self.assertIn(f"{n1}: 0 runs stored, 2 already stored", second.stdout)
        self.assertEqual(self.query("SELECT count(*), count(DISTINCT uid) FROM runs", db=merged),
                         [(4, 4)])
        self.assertEqual(self.scalar("SELECT count(*) FROM machine_profiles", db=merged), 1)
        # The profile came with its ceilings, and the runs' stored placements with it.
        self.assertEqual(self.scalar("SELECT count(*) FROM ceilings", db=merged),
                         self.scalar("SELECT count(*) FROM ceilings", db=n0))
        self.assertEqual(self.scalar("SELECT count(*) FROM placements p JOIN machine_profiles m"
                                     " ON m.id = p.profile_id", db=merged), 2)
        job = json.loads(self.rprof_ok("--db", merged, "job", job_id, "--format", "json",
                                       db=False).stdout)
        self.assertTrue(job["complete"], job)
        self.assertEqual([r["rank"] for r in job["ranks"]], [0, 1, 2, 3])
        self.assertTrue(job["placement"]["placed"], job["placement"])

    def test_a_second_host_without_a_profile_leaves_the_job_unplaced(self):
        if not shutil.which("unshare") or subprocess.run(
                ["unshare", "-u", "true"], capture_output=True).returncode != 0:
            self.skipTest("unshare -u (a host name of its own for two ranks) is not allowed here")
        n0, n1 = self.path("node0.db"), self.path("node1.db")
        self.with_profile(n0)
        # Ranks 2 and 3 on "nodeb": a UTS namespace of their own, another machine fingerprint.
        self.split_over_two_nodes(n0, n1, second_host="nodeb")
        merged = self.path("merged.db")
        self.rprof_ok("--db", merged, "merge", n0, n1, db=False)
        hosts = self.query("SELECT job_rank, job_host FROM runs ORDER BY job_rank", db=merged)
        self.assertEqual([h for _, h in hosts][2:], ["nodeb", "nodeb"], hosts)
        job = json.loads(self.rprof_ok("--db", merged, "job", self.job_ids(merged)[0],
                                       "--format", "json", db=False).stdout)
        self.assertTrue(job["complete"])
        placement = job["placement"]
        self.assertFalse(placement["placed"])
        self.assertIn("node nodeb has no machine profile", placement["reason"])
        self.assertEqual(sorted((n["host"], n["ranks"]) for n in placement["nodes"]),
                         [("nodeb", 2), (os.uname().nodename, 2)])

    def test_a_newer_schema_source_is_refused_untouched(self):
        source = self.path("newer.db")
        rprof_harness.make_database(source)
        con = sqlite3.connect(source)
        con.execute("PRAGMA user_version = 999")
        con.close()
        before = rprof_harness.file_bytes(source)
        result = self.rprof("merge", source)
        self.assertError(result, 3, "schema version 999 is newer than this rprof's",
                         "nothing of it was merged")
        self.assertEqual(rprof_harness.file_bytes(source), before)

    def test_a_run_the_databases_disagree_about_is_a_conflict(self):
        self.rprof_ok("run", *rprof_harness.FAST_RUN, "triad")
        # The same run (its uid) in another database, as `rprof import` stores an edited JSON.
        other = self.path("other.db")
        import_run_json(self, 1, other, ended_at="2099-01-01T00:00:00.000Z")
        result = self.rprof_ok("merge", other)
        self.assertIn("0 runs stored, 1 already stored", result.stdout)
        self.assertIn("conflict: run uid", result.stdout)
        self.assertIn("with another ended_at: the stored run is kept", result.stdout)

    def test_a_missing_source_is_refused_before_anything_is_created(self):
        merged = self.path("merged.db")
        result = self.rprof("--db", merged, "merge", self.path("nowhere.db"), db=False)
        self.assertError(result, 2, "nowhere.db: no such file")
        self.assertFalse(os.path.exists(merged))

    def test_merging_the_database_into_itself_is_refused(self):
        self.rprof_ok("run", *rprof_harness.FAST_RUN, "triad")
        self.assertError(self.rprof("merge", self.db), 2, "is the database merged into")


if __name__ == "__main__":
    skip_unless_mpi()
    rprof_harness.main()
