"""rprof import: runs saved as JSON stored in a database, once. The JSON of `rprof show N
--format json` moves a run to another database whole (every key but run_id and the live
placement reads back the same), history's array moves many, a second import stores nothing, and a
file that is not a run is a usage error that creates no database."""

import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import SANITIZED, SANITIZED_SKIP, RprofTestCase  # noqa: E402
from fixtures import cli_target, sim_unavailable  # noqa: E402

QUICK_TRIAD = ["triad", "-p", "n=10000", "--counters", "model", "--repeat", "3"]

# Keys of the run JSON that belong to the database the run is in, not to the run.
DATABASE_KEYS = ("run_id", "placement")


def without_database_keys(run):
    return {k: v for k, v in run.items() if k not in DATABASE_KEYS}


class Import(RprofTestCase):
    def setUp(self):
        super().setUp()
        self.other = self.path("other.db")

    def write(self, name, text):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def show_json(self, run_id, db=True):
        return json.loads(self.rprof_ok("show", str(run_id), "--format", "json", db=db).stdout)

    def test_a_run_moves_to_another_database_whole(self):
        self.rprof_ok("run", *QUICK_TRIAD, "--tag", "lab=14", "--tag", "who=ci", "--quiet")
        original = self.show_json(1)
        self.assertRegex(original["uid"], r"^[0-9a-f]{32}$")
        exported = self.write("run1.json", json.dumps(original))
        r = self.rprof_ok("import", exported, db=self.other)
        self.assertEqual(r.stdout, f"{exported}: stored as run 1\n")
        moved = self.show_json(1, db=self.other)
        self.assertEqual(without_database_keys(moved), without_database_keys(original))
        again = self.rprof_ok("import", exported, db=self.other)
        self.assertEqual(again.stdout, f"{exported}: already stored as run 1\n")
        self.assertEqual(self.scalar("select count(*) from runs", db=self.other), 1)
        # Back into the database it came from: it is already there.
        self.assertEqual(self.rprof_ok("import", exported).stdout,
                         f"{exported}: already stored as run 1\n")

    def test_regions_hot_functions_and_hot_lines_move_whole(self):
        # Issue 41: import dropped hot functions and hot lines (a recovery file came back with
        # 8 of 11 metrics). A PolyBench-style gemm between marker calls: a region, its hot
        # functions, their hot lines (with sim: FLOPs and bytes per line, a loop's range).
        # A sanitizer build: the marker library carries ASan, which a program built without it
        # cannot load first; hot_functions has the functions and lines without regions.
        program = cli_target("hot_functions" if SANITIZED else "polybench_gemm")
        if not os.access(program, os.X_OK):
            self.skipTest(f"{program} not built (tests/cli_targets)")
        counters = "auto" if sim_unavailable() else "sim"
        r = self.rprof("run", "--counters", counters, "--quiet", program)
        self.assertEqual(r.returncode, 0, r)
        original = self.show_json(1)
        self.assertTrue(original["regions"] or SANITIZED, original)
        self.assertTrue(original["functions"], original)
        lines = [line for f in original["functions"].values() for line in (f.get("lines") or [])]
        if counters == "sim" or lines:
            self.assertTrue(lines, original["functions"])
        self.assertMovesWhole(1)

    def test_a_benchmark_and_a_rank_move_whole(self):
        # Issue 41: every channel in and out is whole, for each kind of run: a Google Benchmark
        # instance (its iterations, its invocation tag) and a rank of a parallel job.
        bench = cli_target("bench_fixture")
        if not os.access(bench, os.X_OK):
            self.skipTest("bench_fixture not built (no Google Benchmark)")
        if SANITIZED:
            self.skipTest("the Google Benchmark shim links the ASan-built marker library: " +
                          SANITIZED_SKIP)
        r = self.rprof("run", "--counters", "pmu", "-q", bench, "--benchmark_filter=saxpy/1024$",
                       "--benchmark_min_time=0.01s")
        self.assertEqual(r.returncode, 0, r)
        rank = dict(self.env, OMPI_COMM_WORLD_RANK="1", OMPI_COMM_WORLD_SIZE="2",
                    OMPI_COMM_WORLD_LOCAL_RANK="1", PMIX_NAMESPACE="import-test-job")
        r = self.rprof("run", *QUICK_TRIAD, "-q", env=rank)
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(self.show_json(1)["target_kind"], "benchmark")
        self.assertEqual(self.show_json(2)["job"]["rank"], 1)
        for run_id in (1, 2):
            with self.subTest(run=run_id):
                self.assertMovesWhole(run_id)

    def assertMovesWhole(self, run_id):
        """The run's JSON, imported into the other database, shows again as it was."""
        original = self.show_json(run_id)
        exported = self.write(f"run{run_id}.json", json.dumps(original))
        stored = self.rprof_ok("import", exported, db=self.other).stdout
        moved_id = int(stored.rsplit(" ", 1)[1])
        moved = self.show_json(moved_id, db=self.other)
        self.assertEqual(json.dumps(without_database_keys(moved), sort_keys=True),
                         json.dumps(without_database_keys(original), sort_keys=True))

    def test_historys_array_moves_many_runs_in_one_transaction(self):
        for _ in range(3):
            self.rprof_ok("run", *QUICK_TRIAD, "--quiet")
        history = self.write("all.json", self.rprof_ok("history", "--format", "json").stdout)
        r = self.rprof_ok("import", history, db=self.other)
        self.assertEqual(r.stdout.splitlines(), [f"{history} [1/3]: stored as run 1",
                                                 f"{history} [2/3]: stored as run 2",
                                                 f"{history} [3/3]: stored as run 3"])
        # Newest first in history, so the newest run is the first imported.
        self.assertEqual(self.show_json(1, db=self.other)["uid"], self.show_json(3)["uid"])

    def test_several_files_at_once(self):
        self.rprof_ok("run", *QUICK_TRIAD, "--quiet")
        self.rprof_ok("run", *QUICK_TRIAD, "--quiet")
        a = self.write("a.json", json.dumps(self.show_json(1)))
        b = self.write("b.json", json.dumps(self.show_json(2)))
        r = self.rprof_ok("import", a, b, a, db=self.other)
        self.assertEqual(r.stdout.splitlines(), [f"{a}: stored as run 1", f"{b}: stored as run 2",
                                                 f"{a}: already stored as run 1"])

    def test_json_of_an_older_rprof_without_uid_is_still_stored_once(self):
        self.rprof_ok("run", *QUICK_TRIAD, "--quiet")
        old = self.show_json(1)
        for key in ("uid", "cwd", "rprof_version"):
            del old[key]
        for key in ("caches", "kernel"):
            del old["machine"][key]
        path = self.write("old.json", json.dumps(old))
        self.assertEqual(self.rprof_ok("import", path, db=self.other).stdout,
                         f"{path}: stored as run 1\n")
        self.assertEqual(self.rprof_ok("import", path, db=self.other).stdout,
                         f"{path}: already stored as run 1\n")
        self.assertRegex(self.show_json(1, db=self.other)["uid"], r"^[0-9a-f]{32}$")

    def test_what_is_not_a_run_is_a_usage_error_that_creates_nothing(self):
        self.rprof_ok("run", *QUICK_TRIAD, "--quiet")
        good_text = json.dumps(self.show_json(1))
        good = self.write("good.json", good_text)
        broken = dict(self.show_json(1), status="splendid")
        cases = {
            "garbage.json": ("garbage\n", "not JSON: line 1, column 1: unexpected 'g'"),
            "empty.json": ("", "not JSON: line 1, column 1: unexpected end of the document"),
            "cut.json": (good_text[:100], "not JSON: line 1, column 101"),
            "other.json": ('{"laps": [62.5]}', "target: expected a string, but it is missing"),
            "status.json": (json.dumps(broken), "status: expected ok, failed, crashed or "
                                                "interrupted"),
            "binary.json": ("\x00\x01\x02", "not JSON"),
        }
        for name, (text, why) in cases.items():
            with self.subTest(file=name):
                path = self.write(name, text)
                # Given after a good file: nothing of the good one is stored either.
                r = self.rprof("import", good, path, db=self.other)
                self.assertError(r, 2, f"{path}: not a run JSON (", why,
                                 "import takes the JSON of `rprof show N --format json`")
                self.assertFalse(os.path.exists(self.other), "a refused import created the db")
        self.assertError(self.rprof("import", self.path("absent.json"), db=self.other), 2,
                         "absent.json: cannot read it: No such file or directory")
        self.assertError(self.rprof("import", self.tmp, db=self.other), 2, "not a file")
        self.assertError(self.rprof("import", db=self.other), 2, "import: name the files")
        self.assertFalse(os.path.exists(self.other))

    def test_a_database_that_cannot_take_the_runs_is_exit_3(self):
        self.rprof_ok("run", *QUICK_TRIAD, "--quiet")
        path = self.write("run.json", json.dumps(self.show_json(1)))
        rprof_harness.make_database(self.other)
        holder = sqlite3.connect(self.other, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            r = self.rprof("import", path, db=self.other,
                           env=dict(self.env, RPROF_BUSY_TIMEOUT_MS="100"))
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        self.assertError(r, 3, "locked by another process")
        self.assertEqual(self.scalar("select count(*) from runs", db=self.other), 0)

    def test_help_names_the_recovery_directory(self):
        r = self.rprof_ok("help", "import", db=False,
                          env=dict(self.env, XDG_STATE_HOME=self.path("state")))
        self.assertIn(self.path("state") + "/rprof/recovered", r.stdout)


if __name__ == "__main__":
    rprof_harness.main()
