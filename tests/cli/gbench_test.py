"""Google Benchmark binaries through the rprof binary (issue 17): tests/cli_targets/bench_fixture
(BM_saxpy/{1024,65536,1048576}, BM_matmul/{64,128}) stored as one run of kind benchmark per
instance, with sim FLOPs per iteration of the timed loop exact, and each bad input of the issue."""

import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rprof_harness import SANITIZED, SANITIZED_SKIP, RprofTestCase, main  # noqa: E402
from fixtures import insert_profile  # noqa: E402

UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def console_rows(stdout):
    """Google Benchmark's console table (the binary's own standard output): per benchmark, its
    real time per iteration in seconds and its iterations, from the native execution (the sim
    replay under valgrind prints nothing there: its output is not the user's)."""
    rows = {}
    for line in stdout.splitlines():
        m = re.match(r"^(BM_\S+)\s+([0-9.]+) (ns|us|ms|s)\s+[0-9.]+ (?:ns|us|ms|s)\s+(\d+)", line)
        if m and m.group(1) not in rows:  # the native run's line; the replay's comes after
            rows[m.group(1)] = (float(m.group(2)) * UNIT_SECONDS[m.group(3)], int(m.group(4)))
    return rows

TARGETS = os.environ.get("RPROF_CLI_TARGETS", "")
FIXTURE = os.path.join(TARGETS, "bench_fixture")
FIXTURE_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli_targets",
                              "bench_fixture.cc")
WORK = {"BM_saxpy/1024": 2 * 1024, "BM_saxpy/65536": 2 * 65536, "BM_saxpy/1048576": 2 * 1048576,
        "BM_matmul/64": 2 * 64 ** 3, "BM_matmul/128": 2 * 128 ** 3}


class Gbench(RprofTestCase):
    def setUp(self):
        super().setUp()
        if not os.access(FIXTURE, os.X_OK):
            self.skipTest("bench_fixture not built (no Google Benchmark: libbenchmark-dev)")
        if SANITIZED:
            self.skipTest("the shim links the ASan-built librprof-marker and is preloaded "
                          "into a program built without ASan, under valgrind too; " +
                          SANITIZED_SKIP)

    def runs(self):
        return self.query("select id, target, target_kind, status from runs order by id")

    def metric(self, run_id, name, source):
        rows = self.query("select value from metrics where run_id = ? and name = ? and "
                          "source = ? and region = ''", (run_id, name, source))
        return rows[0][0] if rows else None

    def test_every_benchmark_a_run_with_exact_sim_flops(self):
        if shutil.which("valgrind") is None:
            self.skipTest("valgrind not found: the sim counts cannot be checked")
        # A first run stores this machine; a profile of it then places the benchmarks.
        self.assertEqual(self.rprof("run", "--counters", "pmu", FIXTURE,
                                    "--benchmark_filter=saxpy/1024$",
                                    "--benchmark_min_time=0.01").returncode, 0)
        insert_profile(self.db)
        before = len(self.runs())
        result = self.rprof("run", FIXTURE, "--benchmark_min_time=0.02", timeout=600)
        self.assertEqual(result.returncode, 0, result)
        # The binary's own output stays on standard output: Google Benchmark's own table.
        console = console_rows(result.stdout)
        self.assertEqual(sorted(console), sorted(WORK))
        # Each benchmark's line once: the replays (one short timed loop each, under valgrind)
        # keep their own tables off the user's standard output.
        for name in WORK:
            lines = [line for line in result.stdout.splitlines()
                     if re.match(re.escape(name) + r"\s", line)]
            self.assertEqual(len(lines), 1, (name, result.stdout))
        runs = self.runs()[before:]
        self.assertEqual([r[1] for r in runs], list(WORK))
        invocations = self.query("select distinct value from tags where key = 'invocation' and "
                                 "run_id > ?", (before,))
        self.assertEqual(len(invocations), 1)
        for run_id, name, kind, status in runs:
            self.assertEqual((kind, status), ("benchmark", "ok"))
            # Time per iteration and iterations are Google Benchmark's own, as it printed them
            # (the console rounds the time to 3 or 4 digits).
            seconds, iterations = console[name]
            self.assertEqual(self.metric(run_id, "iterations", "clock"), iterations, name)
            self.assertAlmostEqual(self.metric(run_id, "time_s", "clock") / seconds, 1,
                                   delta=0.006, msg=name)
            placed = self.query("select attainable_gflops, verdict from placements where "
                                "run_id = ?", (run_id,))
            self.assertTrue(placed and placed[0][0], (name, placed))
            sim = self.metric(run_id, "flops", "sim")
            self.assertIsNotNone(sim, name)
            self.assertAlmostEqual(sim / WORK[name], 1, delta=0.001, msg=name)
            # Declared by the benchmark's FLOPs counter (a rate x CPU time per iteration).
            model = self.metric(run_id, "flops", "model")
            self.assertAlmostEqual(model / WORK[name], 1, delta=0.01, msg=name)
            self.assertGreater(self.metric(run_id, "time_s", "clock"), 0)
            self.assertGreater(self.metric(run_id, "iterations", "clock"), 0)
        arg0 = self.query("select params from runs where target = 'BM_saxpy/65536'")[0][0]
        self.assertIn('"arg0"', arg0)
        self.assertIn("65536", arg0)
        # history lists the invocation, and only it.
        listed = self.rprof("history", "--invocation", invocations[0][0], "--format", "json")
        self.assertEqual(listed.returncode, 0, listed)
        self.assertEqual(len(json.loads(listed.stdout)), 5, listed)
        # A unique prefix names it too, as `compare --invocation` takes one.
        listed = self.rprof("history", "--invocation", invocations[0][0][:6], "--format", "json")
        self.assertEqual(listed.returncode, 0, listed)
        self.assertEqual(len(json.loads(listed.stdout)), 5, listed)

    def test_pmu_loop_says_what_a_thread_pool_did_for_it(self):
        # Issue 24: an OpenMP team working inside a benchmark's timed loop never enters rprof's
        # region around it, so the loop's pmu counts miss its half; its CPU time is measured and
        # the run says so.
        program = os.path.join(TARGETS, "bench_omp")
        if not os.access(program, os.X_OK):
            self.skipTest("bench_omp not built (meson found no OpenMP)")
        env = dict(self.env, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
        r = self.rprof("run", "--counters", "pmu", "--format", "json", "-o", self.path("r.json"),
                       program, "--benchmark_min_time=0.05", env=env)
        self.assertEqual(r.returncode, 0, r)
        with open(self.path("r.json")) as f:
            (run,) = json.load(f)  # one benchmark: a JSON array of one run
        elsewhere = run["metrics"]["cpu_elsewhere_s"]["clock"]
        self.assertIn("per iteration", elsewhere["note"])
        # The team's thread did half of each iteration: a real share of the loop's own time.
        self.assertGreater(elsewhere["value"], 0.1 * run["metrics"]["time_s"]["clock"]["value"],
                           run["metrics"])
        notes = [t["detail"] for t in run["trust"] if t["kind"] == "untrusted"]
        self.assertTrue(any(n.startswith("the timed loop: other threads of the process used")
                            for n in notes), notes)

    def test_each_instance_has_its_hot_functions(self):
        # Issue 28: each instance's hot functions, sampled over its own execution (pmu: the time
        # profile alone); with sim, counted over its timed loop in the replay, per iteration as
        # the loop's own counts are.
        def one_run(*args):
            out = self.path("run.json")
            r = self.rprof("run", *args, "--format", "json", "-o", out, FIXTURE,
                           "--benchmark_filter=BM_matmul/64$", "--benchmark_min_time=0.2",
                           timeout=600)
            self.assertEqual(r.returncode, 0, r)
            with open(out) as f:
                (run,) = json.load(f)  # one benchmark: a JSON array of one run
            names = [name for name in run["functions"] if "BM_matmul" in name]
            self.assertEqual(len(names), 1, sorted(run["functions"]))
            return run, run["functions"][names[0]]

        # A first run stores this machine; a profile of it then places the functions.
        self.assertEqual(self.rprof("run", "--counters", "pmu", FIXTURE,
                                    "--benchmark_filter=saxpy/1024$",
                                    "--benchmark_min_time=0.01").returncode, 0)
        insert_profile(self.db)
        run, function = one_run("--counters", "pmu")
        time = function["time_s"]["clock"]
        # The timed loop is all but the whole execution: most of its samples.
        self.assertGreater(function["time_share"]["clock"]["value"], 0.5, time["note"])
        self.assertIn("the share is of the whole benchmark execution", time["note"])
        self.assertLessEqual(time["value"], run["metrics"]["time_s"]["clock"]["value"])
        self.assertFalse(function["placement"]["placed"])
        self.assertIn("no source here counts per function", function["placement"]["reason"])
        if shutil.which("valgrind") is None:
            return
        run, function = one_run("--counters", "sim")
        # The loop's 2 n^3 FLOPs per iteration, all in the benchmark's function, exactly.
        self.assertEqual(function["flops"]["sim"]["value"], 2 * 64 ** 3, function["flops"])
        self.assertEqual(function["flops"]["sim"]["value"], run["metrics"]["flops"]["sim"]["value"])
        self.assertIn("per iteration", function["flops"]["sim"]["note"])
        self.assertTrue(function["placement"]["placed"], function["placement"])
        # Its hot lines are per iteration too: the inner loop's line (marked "hot line" in the
        # fixture's source) holds the function's FLOPs; no line holds more.
        lines = function["lines"]
        self.assertTrue(lines, function.get("lines_reason"))
        with open(FIXTURE_SOURCE) as f:
            marked = next(n for n, text in enumerate(f, 1) if "// hot line" in text)
        loop = next(l for l in lines if l["line"] == marked)
        self.assertEqual(loop["flops"]["sim"]["value"], 2 * 64 ** 3, loop["flops"])
        self.assertIn("per iteration", loop["flops"]["sim"]["note"])
        for line in lines:
            self.assertLessEqual(line.get("flops", {}).get("sim", {}).get("value", 0), 2 * 64 ** 3)
        # The count of hot lines is no amount of work: not divided by the iterations (the
        # replay runs one here, so the note tells).
        self.assertEqual(function["hot_lines"]["sim"]["value"], len(lines))
        self.assertNotIn("per iteration", function["hot_lines"]["sim"]["note"])

    def test_kernels_lists_the_benchmarks(self):
        listed = self.rprof_ok("kernels", FIXTURE, "--format", "json")
        self.assertEqual([b["name"] for b in json.loads(listed.stdout)["benchmarks"]], list(WORK))

    def test_compare_two_invocations_with_a_p_value(self):
        for _ in range(2):
            result = self.rprof("run", "--counters", "pmu", FIXTURE,
                                "--benchmark_filter=BM_saxpy/(1024|65536)$",
                                "--benchmark_repetitions=4", "--benchmark_min_time=0.01")
            self.assertEqual(result.returncode, 0, result)
        a, b = [row[0] for row in self.query(
            "select value from tags where key = 'invocation' group by value order by "
            "min(run_id)")]
        out = self.rprof_ok("compare", "--invocation", a[:8], "--invocation", b,
                            "--format", "json")
        rows = json.loads(out.stdout)["benchmarks"]
        self.assertEqual([r["benchmark"] for r in rows], ["BM_saxpy/1024", "BM_saxpy/65536"])
        for r in rows:
            self.assertTrue(0 < r["p_value"] <= 1, r)
            self.assertGreater(r["a_time_s"], 0)
        # The text table too, with its p column.
        text = self.rprof_ok("compare", "--invocation", a, "--invocation", b)
        self.assertIn("p", text.stdout)
        # --fail-if-slower fails only on a significant slow-down: with 4 repetitions each, an
        # exact p below 0.05 needs every B repetition slower than every A one.
        gate = self.rprof("compare", "--invocation", a, "--invocation", b,
                          "--fail-if-slower", "0")
        significant_slower = [r for r in rows
                              if r["p_value"] < 0.05 and r["time_change_pct"] > 0]
        self.assertEqual(gate.returncode, 1 if significant_slower else 0, gate)
        self.assertError(self.rprof("compare", "--invocation", "ffff", "--invocation", b), 2,
                         "no stored invocation")

    def test_filter_and_pmu_counts_per_iteration(self):
        result = self.rprof("run", "--counters", "pmu", FIXTURE, "--benchmark_filter=saxpy/1024$",
                            "--benchmark_min_time=0.01s")
        self.assertEqual(result.returncode, 0, result)
        runs = self.runs()
        self.assertEqual([r[1] for r in runs], ["BM_saxpy/1024"])
        # The shim's region: the task clock of the timed loop, per iteration, near the time.
        task = self.metric(runs[0][0], "perf::TASK-CLOCK", "pmu")
        if task is not None:
            cpu = self.metric(runs[0][0], "cpu_time_s", "clock")
            self.assertAlmostEqual(task * 1e-9 / cpu, 1, delta=0.5)
            # Issue 38 ('643 vs 754 iterations'): the totals are divided by every pass of the
            # loop the shim counted, Google Benchmark's trial loops included, and the note says
            # so beside the iterations Google Benchmark reports for a repetition.
            doc = json.loads(self.rprof_ok("show", str(runs[0][0]), "--format", "json").stdout)
            reported = doc["metrics"]["iterations"]["clock"]["value"]
            note = doc["metrics"]["perf::TASK-CLOCK"]["pmu"]["note"]
            passes = int(re.search(r"\((\d+) iterations in the native execution", note).group(1))
            self.assertGreaterEqual(passes, reported, note)
            if passes != reported:
                self.assertIn(f"trial loops that sized it included; Google Benchmark reports "
                              f"{reported} a repetition", note)

    def test_two_benchmarks_as_csv_give_one_header(self):
        # Issue 27: each benchmark's CSV was printed whole, header and all.
        # -o: the report alone (the binary writes its own context to standard error too).
        report = self.path("report.csv")
        result = self.rprof("run", "--counters", "pmu", "--format", "csv", "-o", report, FIXTURE,
                            "--benchmark_filter=saxpy/(1024|65536)$",
                            "--benchmark_min_time=0.01s")
        self.assertEqual(result.returncode, 0, result)
        with open(report) as f:
            text = f.read()
        lines = text.splitlines()
        self.assertEqual([line for line in lines if line.startswith("run_id,")], [lines[0]], text)
        ids = {line.split(",")[0] for line in lines[1:]}
        self.assertEqual(ids, {str(r[0]) for r in self.runs()})
        self.assertEqual(len(ids), 2)

    def test_the_text_report_is_one_line_per_benchmark(self):
        # Issue 38: each benchmark's whole report (about 300 lines under sim) buried the
        # verdicts; Google Benchmark's own table is one line per benchmark, and so is rprof's.
        report = self.path("report.txt")
        args = ["run", "--counters", "pmu", "-o", report, FIXTURE,
                "--benchmark_filter=saxpy/(1024|65536)$", "--benchmark_min_time=0.01s"]
        env = dict(self.env, COLUMNS="80")
        self.assertEqual(self.rprof(*args, env=env).returncode, 0)
        with open(report) as f:
            text = f.read()
        lines = text.splitlines()
        self.assertLessEqual(len(lines), 12, text)
        self.assertTrue(all(len(line) <= 80 for line in lines[:-1]), text)
        ids = [str(r[0]) for r in self.runs()]
        for run_id, name in zip(ids, ["BM_saxpy/1024", "BM_saxpy/65536"]):
            # Each row: the run's id and the benchmark's name whole, the binary's base name.
            self.assertRegex(text, rf"\n\s*{run_id}\s+{re.escape(name)}\s", text)
        self.assertIn("(\u2026/bench_fixture)", text)
        self.assertIn("every benchmark's: -v", text)
        # -v: each benchmark's whole report, as before.
        self.assertEqual(self.rprof(*args[:1], "-v", *args[1:], env=env).returncode, 0)
        with open(report) as f:
            whole = f.read()
        self.assertEqual(len(re.findall(r"^run \d+ BM_saxpy/", whole, re.M)), 2, whole)
        self.assertGreater(len(whole.splitlines()), 2 * len(lines), whole)

    def test_a_benchmark_run_imports_into_another_database(self):
        # Issue 27: the JSON reader did not know the benchmark target kind, so a benchmark run's
        # show, history and recovery JSON could never be imported (exit 2).
        self.assertEqual(self.rprof("run", "--counters", "pmu", FIXTURE,
                                    "--benchmark_filter=saxpy/1024$",
                                    "--benchmark_min_time=0.01s").returncode, 0)
        (run_id, name, kind, _), = self.runs()
        shown = self.rprof_ok("show", str(run_id), "--format", "json").stdout
        history = self.rprof_ok("history", "--format", "json").stdout
        for what, text in (("show", shown), ("history", history)):
            with self.subTest(what):
                other = self.path(f"other-{what}.db")
                exported = self.path(f"{what}.json")
                with open(exported, "w") as f:
                    f.write(text)
                self.rprof_ok("import", exported, db=other)
                back = json.loads(self.rprof_ok("show", "1", "--format", "json", db=other).stdout)
                original = json.loads(shown)
                self.assertEqual(back["target_kind"], "benchmark")
                for key in ("uid", "target", "target_kind", "params", "status", "metrics",
                            "samples_s", "tags"):
                    self.assertEqual(back[key], original[key], key)

    def test_threads_count_one_iteration_of_every_thread(self):
        if shutil.which("valgrind") is None:
            self.skipTest("valgrind not found: the sim counts cannot be checked")
        env = dict(self.env, RPROF_FIXTURE_THREADS="1")
        result = self.rprof("run", FIXTURE, "--benchmark_filter=threads",
                            "--benchmark_min_time=0.01", env=env, timeout=300)
        self.assertEqual(result.returncode, 0, result)
        (run_id, name, kind, status), = self.runs()
        self.assertEqual(name, "BM_saxpy_threads/4096/threads:2")
        params = json.loads(self.scalar("select params from runs"))
        self.assertEqual(params, {"arg0": 4096, "threads": 2})
        # Both threads' work in one iteration, by sim and as the rate counter declares it.
        self.assertEqual(self.metric(run_id, "flops", "sim"), 2 * 2 * 4096)
        self.assertAlmostEqual(self.metric(run_id, "flops", "model") / (2 * 2 * 4096), 1,
                               delta=0.01)
        self.assertEqual(self.metric(run_id, "threads", "clock"), 2)
        # Per iteration of both threads, the hot functions' and lines' amounts are; their count
        # of hot lines is none: one per line shown.
        functions = json.loads(self.rprof_ok("show", str(run_id), "--format", "json").stdout)[
            "functions"]
        saxpy = [f for name, f in functions.items() if "BM_saxpy" in name]
        self.assertEqual(len(saxpy), 1, sorted(functions))
        (saxpy,) = saxpy
        self.assertTrue(saxpy["lines"], saxpy.get("lines_reason"))
        self.assertEqual(saxpy["hot_lines"]["sim"]["value"], len(saxpy["lines"]))
        self.assertNotIn("per iteration", saxpy["hot_lines"]["sim"]["note"])
        self.assertLessEqual(max(l.get("flops", {}).get("sim", {}).get("value", 0)
                                 for l in saxpy["lines"]), 2 * 2 * 4096)

    def test_filter_matching_nothing(self):
        self.assertError(self.rprof("run", FIXTURE, "--benchmark_filter=nothing_matches"), 2,
                         "matches no benchmark")
        self.assertEqual(self.runs(), [])

    def test_gbench_on_a_program_that_is_not_one(self):
        self.assertError(self.rprof("run", "--gbench", os.path.join(TARGETS, "print_bytes")), 2,
                         "does not answer --benchmark_list_tests")

    def test_program_options_that_a_benchmark_binary_does_not_take(self):
        self.assertError(self.rprof("run", "-r", "3", FIXTURE), 2, "--benchmark_repetitions=N")
        self.assertEqual(self.runs(), [])

    def test_min_time_in_iterations_refused_by_1_7(self):
        self.assertError(self.rprof("run", FIXTURE, "--benchmark_min_time=10x"), 2,
                         "takes seconds only")

    def test_error_occurred_is_a_failed_run(self):
        env = dict(self.env, RPROF_FIXTURE_ERROR_IN="BM_saxpy/1024")
        result = self.rprof("run", "--counters", "pmu", FIXTURE,
                            "--benchmark_filter=saxpy/(1024|65536)$",
                            "--benchmark_min_time=0.01", env=env)
        self.assertExit(result, 1, "told to fail")
        self.assertEqual([r[1:] for r in self.runs()],
                         [("BM_saxpy/1024", "benchmark", "failed"),
                          ("BM_saxpy/65536", "benchmark", "ok")])

    def test_crash_midway_keeps_the_finished_runs(self):
        env = dict(self.env, RPROF_FIXTURE_CRASH_IN="BM_saxpy/65536")
        result = self.rprof("run", "--counters", "pmu", FIXTURE, "--benchmark_filter=saxpy",
                            "--benchmark_min_time=0.01", env=env)
        self.assertExit(result, 1, "crashed")
        self.assertEqual([r[1:] for r in self.runs()],
                         [("BM_saxpy/1024", "benchmark", "ok"),
                          ("BM_saxpy/65536", "benchmark", "crashed"),
                          ("BM_saxpy/1048576", "benchmark", "ok")])

    def test_declared_flops_that_disagree_with_sim_get_a_trust_note(self):
        if shutil.which("valgrind") is None:
            self.skipTest("valgrind not found: nothing to hold the declared FLOPs against")
        env = dict(self.env, RPROF_FIXTURE_RATE_MISTAKE="1")
        result = self.rprof("run", FIXTURE, "--benchmark_filter=saxpy/1024$",
                            "--benchmark_min_time=0.01", env=env, timeout=300)
        self.assertEqual(result.returncode, 0, result)
        notes = self.query("select kind, detail from run_trust")
        self.assertTrue(any(kind == "untrusted" and "declared FLOPs" in detail
                            for kind, detail in notes), notes)

    def test_without_the_shared_library_time_and_declared_counters_remain(self):
        # Debian ships no static libbenchmark (libbenchmark.a) to link a real one with: this
        # stand-in answers Google Benchmark's flags without loading the shared library, so the
        # shim cannot bracket its loop, as with a statically linked one. Its JSON has NaN.
        fake = os.path.join(TARGETS, "gbench_stand_in")
        result = self.rprof("run", "--counters", "pmu", fake, "--benchmark_min_time=0.01")
        self.assertEqual(result.returncode, 0, result)
        (run_id, name, kind, status), = self.runs()
        self.assertEqual((name, kind, status), ("BM_fake/8", "benchmark", "ok"))
        self.assertAlmostEqual(self.metric(run_id, "time_s", "clock"), 2.5e-6)
        self.assertAlmostEqual(self.metric(run_id, "flops", "model"), 16)
        self.assertIsNone(self.metric(run_id, "bytes_dram", "model"), "NaN is absent, not 0")
        note = self.scalar("select note from runs")
        self.assertIn("links Google Benchmark statically", note)
        self.assertEqual(self.query("select count(*) from metrics where source = 'pmu'"), [(0,)])


if __name__ == "__main__":
    main()
