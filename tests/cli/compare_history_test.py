"""`rprof compare`, `rprof history` and `rprof query` on run_summary, on one seeded temporary
database (copied for every test), in every format.

The seed (ids in order):
  1  triad n=1000       lab=00 who=ci
  2  triad n=1000       lab=01
  3  triad n=1000000    lab=01 size=big   1000x the work of 1 and 2: slower, deterministically
  4  dot   n=1000       lab=00
  5  /bin/false         lab=02            stored as failed (exit 1), under its canonical path
All with --counters model --repeat 2, so FLOPs and bytes come from the model and are exact.
"""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import RprofTestCase, copy_database  # noqa: E402

COUNTERS = ["--counters", "model", "--repeat", "2", "-q"]
FORMATS = ["table", "csv", "json"]
# A program's runs are stored under its canonical path (/usr/bin/false where /bin is a link).
FALSE = os.path.realpath("/bin/false")


class SeededTestCase(RprofTestCase):
    @classmethod
    def setUpClass(cls):
        cls.class_tmp = tempfile.mkdtemp(prefix="rprof-history-")
        cls.seeded_db = os.path.join(cls.class_tmp, "seeded.db")
        env = dict(os.environ, HOME=cls.class_tmp, XDG_DATA_HOME=cls.class_tmp, LC_ALL="C")
        env.pop("RPROF_DB", None)
        seed = [(["triad", "-p", "n=1000", "--tag", "lab=00", "--tag", "who=ci"], 0),
                (["triad", "-p", "n=1000", "--tag", "lab=01"], 0),
                (["triad", "-p", "n=1000000", "--tag", "lab=01", "--tag", "size=big"], 0),
                (["dot", "-p", "n=1000", "--tag", "lab=00"], 0),
                # A program takes everything after its name: rprof's options come first.
                (["--tag", "lab=02", "/bin/false"], 1)]
        for args, code in seed:
            proc = subprocess.run([rprof_harness.RPROF, "--db", cls.seeded_db, "run"] +
                                  COUNTERS + args, env=env, capture_output=True, text=True,
                                  timeout=120)
            if proc.returncode != code:
                raise AssertionError(f"seeding `rprof run {' '.join(args)}`: exit "
                                     f"{proc.returncode}\n{proc.stdout}\n{proc.stderr}")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.class_tmp, ignore_errors=True)

    def setUp(self):
        super().setUp()
        copy_database(self.seeded_db, self.db)


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


class Seed(SeededTestCase):
    def test_seed_is_as_described(self):
        self.assertEqual(self.query("select id, target, status from runs order by id"),
                         [(1, "triad", "ok"), (2, "triad", "ok"), (3, "triad", "ok"),
                          (4, "dot", "ok"), (5, FALSE, "failed")])
        self.assertEqual(self.query("select run_id, key, value from tags order by run_id, key"),
                         [(1, "lab", "00"), (1, "who", "ci"), (2, "lab", "01"), (3, "lab", "01"),
                          (3, "size", "big"), (4, "lab", "00"), (5, "lab", "02")])


class Compare(SeededTestCase):
    def compare_json(self, a, b, *args):
        return json.loads(self.rprof_ok("compare", str(a), str(b), "--format", "json",
                                        *args).stdout)

    def forced(self, *args):
        """`rprof compare ARGS --force` of runs of different work: it compares, and says so
        once on stderr."""
        r = self.rprof("compare", *args, "--force")
        self.assertIn(r.returncode, (0, 1), r)
        self.assertEqual(r.stderr.count("rprof: warning: compare: different "), 1, r)
        return r

    def test_different_work_is_refused_without_force(self):
        # Ratios of two workloads read like a speed-up or a slow-down and are neither.
        self.assertError(self.rprof("compare", "1", "3"), 2,
                         "compare: different parameters: run 1 measured triad n=1000, run 3 "
                         "triad n=1000000; compare runs of one target and its parameters, or add "
                         "--force")
        self.assertError(self.rprof("compare", "1", "4"), 2,
                         "compare: different targets: run 1 measured triad n=1000, run 4 dot "
                         "n=1000")
        self.assertError(self.rprof("compare", "5", "4"), 2, "different targets", FALSE)
        r = self.forced("1", "4")
        self.assertIn("rprof: warning: compare: different targets (--force): run 1 measured "
                      "triad n=1000, run 4 dot n=1000\n", r.stderr)
        self.assertIn("A: run 1  triad", r.stdout)
        # The same work is compared without a word.
        self.rprof_ok("compare", "1", "2")

    def test_json_same_work(self):
        out = self.compare_json(1, 2)
        self.assertEqual((out["a"], out["b"]), (1, 2))
        for key in ["time_ratio", "a_verdict", "b_verdict", "metrics"]:
            self.assertIn(key, out)
        self.assertGreater(out["time_ratio"], 0)
        metrics = {(m["name"], m["source"], m["region"]): m for m in out["metrics"]}
        for m in out["metrics"]:
            self.assertEqual(set(m), {"region", "name", "source", "unit", "a", "b", "ratio"})
        for name in ["flops", "flops_dp", "bytes_dram", "ai_dram"]:
            with self.subTest(name=name):
                m = metrics[(name, "model", "")]
                self.assertEqual(m["a"], m["b"])
                self.assertEqual(m["ratio"], 1)
        self.assertEqual(metrics[("flops", "model", "")]["a"], 2000)
        self.assertEqual(metrics[("flops", "model", "")]["unit"], "FLOP")
        t = metrics[("time_s", "clock", "")]
        self.assertAlmostEqual(t["ratio"], t["b"] / t["a"], places=12)
        self.assertAlmostEqual(out["time_ratio"], t["ratio"], places=12)
        # No machine profile in this database: each verdict says how to make one.
        self.assertIn("rprof machine measure", out["a_verdict"])
        self.assertIn("rprof machine measure", out["b_verdict"])

    def test_json_bigger_run(self):
        out = json.loads(self.forced("1", "3", "--format", "json").stdout)
        metrics = {(m["name"], m["source"]): m for m in out["metrics"] if m["region"] == ""}
        self.assertEqual(metrics[("flops", "model")]["b"], 2000000)
        self.assertEqual(metrics[("flops", "model")]["ratio"], 1000)
        self.assertEqual(metrics[("bytes_dram", "model")]["ratio"], 1000)
        self.assertEqual(metrics[("ai_dram", "model")]["ratio"], 1)
        self.assertGreater(out["time_ratio"], 1)

    def test_json_metric_only_one_run_has(self):
        # /bin/false has no model metrics; dot's are listed with nothing on A's side.
        out = json.loads(self.forced("5", "4", "--format", "json").stdout)
        flops = [m for m in out["metrics"] if m["name"] == "flops" and m["source"] == "model"]
        self.assertEqual(len(flops), 1)
        self.assertIsNone(flops[0]["a"])
        self.assertEqual(flops[0]["b"], 2000)
        self.assertIsNone(flops[0]["ratio"])

    def test_csv(self):
        out = self.rprof_ok("compare", "1", "2", "--format", "csv").stdout
        reader = csv.DictReader(io.StringIO(out))
        self.assertEqual(reader.fieldnames,
                         ["region", "metric", "source", "unit", "a", "b", "ratio"])
        rows = {(r["metric"], r["source"]): r for r in reader}
        self.assertEqual(rows[("flops", "model")]["a"], "2000")
        self.assertEqual(rows[("flops", "model")]["b"], "2000")
        self.assertEqual(float(rows[("flops", "model")]["ratio"]), 1)
        t = rows[("time_s", "clock")]
        self.assertEqual(t["unit"], "s")
        self.assertAlmostEqual(float(t["ratio"]), float(t["b"]) / float(t["a"]), places=12)
        # The same rows as JSON, in the same order.
        as_json = self.compare_json(1, 2)["metrics"]
        self.assertEqual([(r["metric"], r["source"]) for r in csv_rows(out)],
                         [(m["name"], m["source"]) for m in as_json])

    def test_table(self):
        out = self.forced("1", "3").stdout
        lines = out.splitlines()
        self.assertRegex(lines[0], r"^A: run 1  triad  \d{4}-")
        self.assertIn("rprof machine measure", lines[1])
        self.assertRegex(lines[2], r"^B: run 3  triad  \d{4}-")
        self.assertRegex(out, r"time per call: B/A = [\d.]+ \(\+[\d.]+ %\)")
        header = next(line for line in lines if line.split()[:2] == ["region", "metric"])
        self.assertEqual(header.split(), ["region", "metric", "source", "A", "B", "B/A", "unit"])
        flops = next(line.split() for line in lines if line.split()[:2] == ["flops", "model"])
        self.assertEqual(flops[:2] + flops[-1:], ["flops", "model", "FLOP"])
        self.assertEqual([float(v) for v in flops[2:5]], [2000, 2e6, 1000])

    def test_fail_if_slower(self):
        # B = run 3 does 1000x the work of A = run 1: slower by far.
        r = self.forced("1", "3", "--fail-if-slower", "0")
        self.assertError_with_output(r, 1, "run 3 is ", "% slower than run 1 (limit 0.0 %)")
        r = self.forced("1", "3", "--fail-if-slower", "0", "--format", "json")
        self.assertEqual(r.returncode, 1, r)
        self.assertGreater(json.loads(r.stdout)["time_ratio"], 1)
        # B faster than A: passes at any limit.
        self.assertEqual(self.forced("3", "1", "--fail-if-slower", "0").returncode, 0)
        # A limit above the slowdown passes too.
        self.assertEqual(self.forced("1", "3", "--fail-if-slower", "1000000000").returncode, 0)

    def assertError_with_output(self, r, code, *parts):
        """A CI failure: the report is still printed, the reason once on stderr."""
        self.assertExit(r, code, *parts)
        self.assertEqual(r.stderr.count("rprof: error: "), 1, r)
        self.assertIn("A: run 1", r.stdout)

    def test_bad_input(self):
        self.assertError(self.rprof("compare", "1"), 2, "give two run ids")
        self.assertError(self.rprof("compare", "1", "999"), 2, "run 999")
        self.assertError(self.rprof("compare", "1", "2", "--fail-if-slower", "-1"), 2,
                         "--fail-if-slower takes a percentage")
        self.assertError(self.rprof("compare", "1", "2", "--format", "xml"), 2)


class History(SeededTestCase):
    def ids(self, fmt, *args):
        """The run ids `rprof history ARGS --format FMT` lists, in order."""
        out = self.rprof_ok("history", "--format", fmt, *args).stdout
        if fmt == "json":
            return [run["run_id"] for run in json.loads(out)]
        if fmt == "csv":
            return [int(row["run_id"]) for row in csv_rows(out)]
        lines = out.splitlines()
        self.assertEqual(lines[0].split()[0], "run", out)
        return [int(line.split()[0]) for line in lines[1:] if line.strip()]

    def assertIds(self, args, want):
        for fmt in FORMATS:
            with self.subTest(args=args, format=fmt):
                self.assertEqual(self.ids(fmt, *args), want)

    def test_all_newest_first(self):
        self.assertIds([], [5, 4, 3, 2, 1])

    def test_kernel(self):
        self.assertIds(["--kernel", "triad"], [3, 2, 1])
        self.assertIds(["-k", "dot"], [4])
        self.assertIds(["--kernel", "/bin/false"], [5])
        # A program, however it is named: its canonical path, or a name on PATH (issue 15).
        self.assertIds(["--kernel", FALSE], [5])
        self.assertIds(["--kernel", "false"], [5])
        self.assertIds(["--kernel", "copy"], [])

    def test_tag(self):
        self.assertIds(["--tag", "lab=01"], [3, 2])
        self.assertIds(["--tag", "lab=01", "--tag", "size=big"], [3])
        self.assertIds(["-t", "lab=00", "--kernel", "dot"], [4])
        self.assertIds(["--tag", "lab=03"], [])

    def test_invocation_by_a_unique_prefix(self):
        # As `compare --invocation` takes it: the whole uid, a unique prefix, else an error that
        # says how many matched, never an empty table. Three runs of two invocations (as a
        # Google Benchmark binary's runs are tagged), in a database of their own.
        for path in [self.db + suffix for suffix in ("", "-wal", "-shm")]:
            if os.path.exists(path):
                os.remove(path)
        for uid in ["a54c0001", "a54c0001", "a54d0002"]:
            self.rprof_ok("run", *COUNTERS, "triad", "-p", "n=1000", "--tag", f"invocation={uid}")
        self.assertIds(["--invocation", "a54c0001"], [2, 1])
        self.assertIds(["--invocation", "a54c"], [2, 1])
        self.assertIds(["--invocation", "a54d"], [3])
        self.assertError(self.rprof("history", "--invocation", "a54"), 2,
                         "--invocation a54: 2 invocations start so")
        self.assertError(self.rprof("history", "--invocation", "ffff"), 2,
                         "--invocation ffff: no stored invocation has this uid")

    def test_since(self):
        third = self.scalar("select started_at from runs where id = 3")
        self.assertIds(["--since", third], [5, 4, 3])
        self.assertIds(["--since", "2000-01-01"], [5, 4, 3, 2, 1])
        self.assertIds(["--since", "9999"], [])
        self.assertIds(["--since", third, "--kernel", "triad"], [3])

    def test_status(self):
        self.assertIds(["--status", "ok"], [4, 3, 2, 1])
        self.assertIds(["--status", "failed"], [5])
        self.assertIds(["--status", "interrupted"], [])
        self.assertError(self.rprof("history", "--status", "fine"), 2,
                         "--status fine: use ok, failed, crashed or interrupted")

    def test_limit(self):
        self.assertIds(["--limit", "2"], [5, 4])
        self.assertIds(["-n", "1", "--kernel", "triad"], [3])
        self.assertIds(["--limit", "0"], [5, 4, 3, 2, 1])

    def test_json_fields(self):
        runs = {run["run_id"]: run for run in json.loads(
            self.rprof_ok("history", "--format", "json").stdout)}
        self.assertEqual(runs[3]["params"], {"n": 1000000})
        self.assertEqual(runs[3]["tags"], {"lab": "01", "size": "big"})
        self.assertEqual(runs[3]["repetitions"], 2)
        self.assertEqual(runs[3]["metrics"]["flops"]["model"]["value"], 2000000)
        self.assertEqual(runs[5]["status"], "failed")
        self.assertEqual(runs[5]["exit_code"], 1)
        self.assertEqual(runs[5]["target_kind"], "executable")

    def test_csv_fields(self):
        rows = {int(r["run_id"]): r for r in csv_rows(self.rprof_ok("history", "--format",
                                                                    "csv").stdout)}
        self.assertEqual(rows[3]["target"], "triad")
        self.assertEqual(rows[3]["params"], "n=1000000")
        self.assertEqual(rows[1]["gflops_source"], "model")
        self.assertAlmostEqual(float(rows[1]["ai_dram"]), 2 / 24, places=4)
        self.assertEqual(float(rows[4]["ai_dram"]), 0.125)
        for row in rows.values():
            self.assertGreater(float(row["time_s"]), 0)

    def test_csv_leaves_absent_values_empty(self):
        # /bin/false has no FLOPs, so no GFLOP/s, bandwidth or intensity. In CSV an absent value
        # is an empty cell, as `show`, `compare` and `query` write it (and NULL in SQLite), not
        # the table's "-" placeholder a script would have to know about.
        row = next(r for r in csv_rows(self.rprof_ok("history", "--format", "csv").stdout)
                   if r["run_id"] == "5")
        for column in ["gflops", "gflops_source", "gbs_dram", "gbs_dram_source", "ai_dram",
                       "ai_dram_source"]:
            with self.subTest(column=column):
                self.assertEqual(row[column], "", row)

    def test_table_columns(self):
        lines = self.rprof_ok("history").stdout.splitlines()
        for column in ["target", "status", "time/call", "GFLOP/s", "GB/s (DRAM)",
                       "AI (FLOP/B)", "sources", "bound, % of roof"]:
            self.assertIn(column, lines[0])
        by_id = {int(line.split()[0]): line for line in lines[1:]}
        self.assertIn("n=1000000", by_id[3])
        self.assertIn("failed", by_id[5])
        self.assertIn("0.08333", by_id[1])


class QueryRunSummary(SeededTestCase):
    SQL = ("select run_id, target, params, status, precision, gflops_source, ai_dram, binding,"
           " percent_of_roof, tags from run_summary order by run_id")

    def test_json(self):
        rows = json.loads(self.rprof_ok("query", self.SQL, "--format", "json").stdout)
        self.assertEqual([r["run_id"] for r in rows], [1, 2, 3, 4, 5])
        self.assertEqual([r["target"] for r in rows],
                         ["triad", "triad", "triad", "dot", FALSE])
        self.assertEqual(json.loads(rows[2]["params"]), {"n": 1000000})
        self.assertEqual([r["status"] for r in rows], ["ok"] * 4 + ["failed"])
        self.assertEqual(rows[0]["precision"], "fp64")
        self.assertIsNone(rows[4]["precision"])
        self.assertEqual([r["gflops_source"] for r in rows], ["model"] * 4 + [None])
        self.assertAlmostEqual(rows[0]["ai_dram"], 2 / 24, places=15)
        self.assertEqual(rows[3]["ai_dram"], 0.125)
        self.assertIsNone(rows[4]["ai_dram"])
        # No machine profile here: not placed, NULL, never 0.
        self.assertEqual({(r["binding"], r["percent_of_roof"]) for r in rows}, {(None, None)})
        self.assertEqual(sorted(rows[0]["tags"].split()), ["lab=00", "who=ci"])
        self.assertEqual(sorted(rows[2]["tags"].split()), ["lab=01", "size=big"])

    def test_csv(self):
        out = self.rprof_ok("query", self.SQL, "--format", "csv").stdout
        reader = csv.DictReader(io.StringIO(out))
        self.assertEqual(reader.fieldnames,
                         ["run_id", "target", "params", "status", "precision", "gflops_source",
                          "ai_dram", "binding", "percent_of_roof", "tags"])
        rows = list(reader)
        self.assertEqual([r["run_id"] for r in rows], ["1", "2", "3", "4", "5"])
        self.assertEqual(rows[2]["params"], '{"n":1000000}')
        self.assertEqual(rows[4]["status"], "failed")
        self.assertEqual(rows[4]["ai_dram"], "")
        self.assertEqual(float(rows[3]["ai_dram"]), 0.125)
        self.assertEqual(rows[0]["binding"], "")

    def test_table(self):
        lines = self.rprof_ok("query", self.SQL).stdout.splitlines()
        self.assertEqual(lines[0].split(), ["run_id", "target", "params", "status", "precision",
                                            "gflops_source", "ai_dram", "binding",
                                            "percent_of_roof", "tags"])
        self.assertEqual([line.split()[0] for line in lines[1:]], ["1", "2", "3", "4", "5"])
        self.assertEqual(lines[5].split()[1:4], [FALSE, "{}", "failed"])
        self.assertIn("NULL", lines[5])

    def test_every_view_column(self):
        rows = json.loads(self.rprof_ok("query", "select * from run_summary where run_id = 3",
                                        "--format", "json").stdout)
        self.assertEqual(len(rows), 1)
        self.assertEqual(list(rows[0]), [
            "run_id", "started_at", "target", "params", "status", "precision", "time_s",
            "gflops", "gflops_source", "gbs_dram", "ai_l1", "ai_l2", "ai_l3", "ai_dram",
            "binding", "percent_of_roof", "verdict", "tags", "hostname", "fingerprint",
            "binding_level", "ai_binding", "bound_text"])
        row = rows[0]
        self.assertGreater(row["time_s"], 0)
        self.assertGreater(row["gflops"], 0)
        self.assertGreater(row["gbs_dram"], 0)
        self.assertIsNone(row["ai_l1"], "the model declares compulsory (DRAM) bytes only")
        self.assertEqual(row["fingerprint"], self.scalar("select fingerprint from machines"))


if __name__ == "__main__":
    rprof_harness.main()
