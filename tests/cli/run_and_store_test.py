"""`rprof run` end to end: what it prints in each format, what it stores (checked with sqlite3),
how history, show and kernels read it back, every built-in kernel at a tiny size, and an
interrupted run stored as such."""

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from fixtures import catches_sigint  # noqa: E402
from rprof_harness import (FAST_RUN, RprofTestCase, evaluate_formula,  # noqa: E402
                           table_rows)

TRIAD_AI = 2000 / 24000  # model FLOPs over compulsory bytes, per call, for n=1000


class RunOutput(RprofTestCase):
    def test_table_labels_every_value_with_its_source(self):
        r = self.rprof_ok("run", "-v", "triad", *FAST_RUN)  # the full report: every metric
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^run \d+  triad  n=1000  fp64  ok$")
        self.assertRegex(r.stdout, r"median of 3 repetitions x \d+ calls")
        rows = table_rows(r.stdout)
        self.assertEqual(rows[("time_s", "clock")][1], "s")
        self.assertGreater(float(rows[("time_s", "clock")][0]), 0)
        self.assertEqual(rows[("flops", "model")], ("2000", "FLOP"))
        self.assertEqual(rows[("flops_dp", "model")], ("2000", "FLOP"))
        self.assertEqual(rows[("bytes_dram", "model")], ("24000", "B"))
        self.assertEqual(rows[("gflops", "model")][1], "GFLOP/s")
        self.assertGreater(float(rows[("gflops", "model")][0]), 0)
        self.assertEqual(rows[("gbs_dram", "model")][1], "GB/s")
        self.assertEqual(rows[("ai_dram", "model")], ("0.08333", "FLOP/B"))
        value, unit = rows[("perf::TASK-CLOCK", "pmu")]
        self.assertEqual(unit, "ns")
        self.assertGreater(float(value), 0)
        # Nothing is derived for a source that lacks the inputs.
        self.assertNotIn(("ai_dram", "pmu"), rows)

    def test_csv_parses(self):
        r = self.rprof_ok("run", "triad", *FAST_RUN, "--format", "csv")
        reader = csv.DictReader(io.StringIO(r.stdout))
        self.assertEqual(reader.fieldnames,
                         ["run_id", "region", "metric", "value", "unit", "source", "note",
                          "spread_pct"])
        rows = {(row["metric"], row["source"]): row for row in reader}
        self.assertEqual({row["run_id"] for row in rows.values()}, {"1"})
        self.assertEqual(float(rows[("flops", "model")]["value"]), 2000)
        self.assertEqual(rows[("flops", "model")]["note"], "2*n")
        self.assertEqual(float(rows[("bytes_dram", "model")]["value"]), 24000)
        self.assertAlmostEqual(float(rows[("ai_dram", "model")]["value"]), TRIAD_AI, places=12)
        self.assertGreater(float(rows[("time_s", "clock")]["value"]), 0)
        self.assertGreater(float(rows[("perf::TASK-CLOCK", "pmu")]["value"]), 0)
        for row in rows.values():
            self.assertEqual(row["region"], "")
            if row["value"] == "":
                self.assertTrue(row["note"], f"{row['metric']} has no value and no reason")

    def test_json_has_the_documented_keys(self):
        out = self.run_json("triad", *FAST_RUN)
        for key in ["run_id", "target", "target_kind", "params", "command", "precision",
                    "status", "exit_code", "signal", "note", "started_at", "ended_at", "machine",
                    "sources", "repetitions", "calls_per_repetition", "time", "samples_s",
                    "tags", "metrics", "regions"]:
            self.assertIn(key, out)
        self.assertEqual(out["run_id"], 1)
        self.assertEqual(out["target"], "triad")
        self.assertEqual(out["target_kind"], "builtin")
        self.assertEqual(out["params"], {"n": 1000})
        self.assertEqual(out["precision"], "fp64")
        self.assertEqual(out["status"], "ok")
        self.assertIsNone(out["note"])
        self.assertEqual(out["repetitions"], 3)
        self.assertEqual(len(out["samples_s"]), 3)
        self.assertGreaterEqual(out["calls_per_repetition"], 1)
        time_stats = out["time"]
        self.assertGreater(time_stats["median_s"], 0)
        self.assertEqual(time_stats["median_s"], sorted(out["samples_s"])[1])
        self.assertEqual(time_stats["min_s"], min(out["samples_s"]))
        self.assertEqual(time_stats["max_s"], max(out["samples_s"]))
        self.assertGreaterEqual(time_stats["cv"], 0)
        metrics = out["metrics"]
        self.assertEqual(metrics["time_s"]["clock"]["value"], time_stats["median_s"])
        self.assertEqual(metrics["flops"]["model"]["value"], 2000)
        self.assertEqual(metrics["bytes_dram"]["model"]["value"], 24000)
        self.assertAlmostEqual(metrics["ai_dram"]["model"]["value"], TRIAD_AI, places=15)
        self.assertAlmostEqual(metrics["gflops"]["model"]["value"],
                               2000 / time_stats["median_s"] / 1e9, delta=1e-9)
        self.assertGreater(metrics["perf::TASK-CLOCK"]["pmu"]["value"], 0)
        self.assertEqual(metrics["perf::TASK-CLOCK"]["pmu"]["unit"], "ns")
        self.assertIn("pmu", out["sources"])
        self.assertEqual(out["regions"], {})
        self.assertTrue(out["machine"]["fingerprint"])
        self.assertGreaterEqual(out["machine"]["cores"], 1)

    def test_kernel_name_without_run(self):
        r = self.rprof_ok("triad", "-p", "n=1000", "--repeat", "3", "--quiet")
        self.assertEqual(r.stdout, "1\n")
        self.assertEqual(self.query("select target, status, repetitions from runs"),
                         [("triad", "ok", 3)])

    def test_quiet_prints_only_the_id(self):
        first = self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        second = self.rprof_ok("run", "triad", *FAST_RUN, "--quiet")
        self.assertEqual(first.stdout, "1\n")
        self.assertEqual(second.stdout, "2\n")
        self.assertEqual(self.scalar("select max(id) from runs"), 2)


class StoredRows(RprofTestCase):
    def test_run_is_stored_whole(self):
        out = self.run_json("triad", *FAST_RUN, "--tag", "lab=00", "--tag", "who=ci")
        run_id = out["run_id"]
        (target_kind, target, params, precision, status, repetitions, calls, sources, note,
         started, ended, version) = self.query(
            "select target_kind, target, params, precision, status, repetitions, calls_per_rep,"
            " sources, note, started_at, ended_at, rprof_version from runs where id = ?",
            (run_id,))[0]
        self.assertEqual((target_kind, target, precision, status, repetitions),
                         ("builtin", "triad", "fp64", "ok", 3))
        self.assertEqual(json.loads(params), {"n": 1000})
        self.assertEqual(calls, out["calls_per_repetition"])
        self.assertEqual(sources.split(","), out["sources"])
        self.assertIsNone(note)
        self.assertLessEqual(started, ended)
        self.assertRegex(started, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertRegex(version, r"^\d+\.\d+\.\d+$")

        samples = self.query("select rep, time_s from samples where run_id = ? order by rep",
                             (run_id,))
        self.assertEqual([rep for rep, _ in samples], [0, 1, 2])
        self.assertEqual([t for _, t in samples], out["samples_s"])

        metrics = {(name, source): (value, unit, note) for name, source, value, unit, note in
                   self.query("select name, source, value, unit, note from metrics"
                              " where run_id = ? and region = ''", (run_id,))}
        self.assertEqual(metrics[("flops", "model")], (2000.0, "FLOP", "2*n"))
        self.assertEqual(metrics[("bytes_dram", "model")][:2], (24000.0, "B"))
        self.assertEqual(metrics[("time_s", "clock")][0], out["time"]["median_s"])
        self.assertAlmostEqual(metrics[("ai_dram", "model")][0], TRIAD_AI, places=15)
        self.assertGreater(metrics[("perf::TASK-CLOCK", "pmu")][0], 0)
        self.assertEqual({source for _, source in metrics}, {"clock", "model", "pmu"})
        # Every metric in the output is stored, and nothing else.
        shown = {(name, source) for name, by_source in out["metrics"].items()
                 for source in by_source}
        self.assertEqual(set(metrics), shown)
        for (name, source), (value, _, note) in metrics.items():
            if value is None:
                self.assertTrue(note, f"{name}/{source} is NULL without a reason")

        self.assertEqual(self.query("select key, value from tags where run_id = ? order by key",
                                    (run_id,)), [("lab", "00"), ("who", "ci")])
        self.assertEqual(self.scalar("select count(*) from machines"), 1)

    def test_database_from_environment(self):
        env_db = self.path("from-env.db")
        env = dict(self.env, RPROF_DB=env_db)
        r = self.rprof_ok("run", "triad", *FAST_RUN, "-q", db=False, env=env)
        self.assertEqual(r.stdout, "1\n")
        self.assertEqual(self.scalar("select count(*) from runs", db=env_db), 1)
        # --db wins over $RPROF_DB.
        self.rprof_ok("run", "triad", *FAST_RUN, "-q", env=env)
        self.assertEqual(self.scalar("select count(*) from runs", db=env_db), 1)
        self.assertEqual(self.scalar("select count(*) from runs"), 1)

    def test_default_database_under_xdg_data_home(self):
        self.rprof_ok("run", "triad", *FAST_RUN, "-q", db=False)
        default = os.path.join(self.env["XDG_DATA_HOME"], "rprof", "rprof.db")
        self.assertEqual(self.scalar("select count(*) from runs", db=default), 1)


class ClosedListTables(RprofTestCase):
    """Issue 27, schema 18: target kinds, run statuses and sources are tables the runs' columns
    reference, kept equal to rprof's own lists at every read-write open, not CHECK lists."""

    KINDS = ["benchmark", "builtin", "executable", "plugin"]
    STATUSES = ["crashed", "failed", "interrupted", "ok"]

    def test_the_columns_reference_the_tables_rprof_keeps(self):
        self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        runs = self.scalar("select sql from sqlite_master where name = 'runs'")
        metrics = self.scalar("select sql from sqlite_master where name = 'metrics'")
        self.assertNotIn("CHECK (target_kind", runs)
        self.assertNotIn("CHECK (status", runs)
        self.assertNotIn("CHECK (source", metrics)
        self.assertIn("target_kind   TEXT NOT NULL REFERENCES target_kinds(name)", runs)
        self.assertIn("status        TEXT NOT NULL REFERENCES run_statuses(name)", runs)
        self.assertIn("source  TEXT NOT NULL REFERENCES sources(name)", metrics)
        self.assertEqual([r[0] for r in self.query("select name from target_kinds order by 1")],
                         self.KINDS)
        self.assertEqual([r[0] for r in self.query("select name from run_statuses order by 1")],
                         self.STATUSES)
        self.assertEqual(self.query("select name, preference from sources order by preference"),
                         [("pmu", 1), ("sim", 2), ("model", 3), ("clock", 4)])
        # Trust kinds too, since schema 21.
        trust = self.scalar("select sql from sqlite_master where name = 'run_trust'")
        self.assertNotIn("CHECK (kind", trust)
        self.assertIn("kind    TEXT NOT NULL REFERENCES trust_kinds(name)", trust)
        self.assertIn("noisy_profile", [r[0] for r in self.query("select name from trust_kinds")])
        # A name no list has is refused, as the CHECK did (rprof's connections enforce keys).
        con = sqlite3.connect(self.db)
        try:
            con.execute("pragma foreign_keys = on")
            with self.assertRaises(sqlite3.IntegrityError):
                con.execute("update runs set target_kind = 'rocket'")
            with self.assertRaises(sqlite3.IntegrityError):
                con.execute("update metrics set source = 'guess'")
            # An entry the table lacks (a list grown since the file was made) is added back at
            # the next open, with its text.
            con.execute("delete from target_kinds where name = 'plugin'")
            con.execute("update run_statuses set text = 'stale' where name = 'crashed'")
            con.commit()
        finally:
            con.close()
        self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        self.assertEqual(self.scalar("select text from target_kinds where name = 'plugin'"),
                         "a kernel from a plugin (.so)")
        self.assertNotEqual(self.scalar("select text from run_statuses where name = 'crashed'"),
                            "stale")

    def test_a_schema_17_file_with_runs_is_brought_up(self):
        rprof_harness.make_database(self.db, before="_closed_list_tables")
        con = sqlite3.connect(self.db)
        try:
            self.assertIn("CHECK (target_kind IN", con.execute(
                "select sql from sqlite_master where name = 'runs'").fetchone()[0])
        finally:
            con.close()
        self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        self.assertGreaterEqual(self.scalar("pragma user_version"), 18)
        self.assertIn("REFERENCES target_kinds(name)",
                      self.scalar("select sql from sqlite_master where name = 'runs'"))
        self.assertEqual(self.query("select target_kind, status from runs"), [("builtin", "ok")])
        self.assertEqual(self.query("pragma foreign_key_check"), [])


class ReadingBack(RprofTestCase):
    def setUp(self):
        super().setUp()
        self.rprof_ok("run", "triad", *FAST_RUN, "-q", "--tag", "lab=00")       # 1
        self.rprof_ok("run", "dot", *FAST_RUN, "-q", "--tag", "lab=01")         # 2
        self.rprof_ok("run", "triad", "-p", "n=2000", "--repeat", "2", "-c", "pmu", "-q")  # 3

    def test_history_table(self):
        r = self.rprof_ok("history")
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0].split()[:3], ["run", "started", "(UTC)"])
        # The text shows the target with its parameters, and where the run stood beside its %.
        for column in ["target", "status", "time/call", "GFLOP/s", "GB/s (DRAM)",
                       "AI (FLOP/B)", "sources", "bound, % of roof"]:
            self.assertIn(column, lines[0])
        self.assertEqual([line.split()[0] for line in lines[1:]], ["3", "2", "1"])
        self.assertIn("n=2000", lines[1])
        self.assertIn("dot", lines[2])
        self.assertIn("0.08333", lines[3])  # triad's model intensity

    def test_history_csv(self):
        r = self.rprof_ok("history", "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual([row["run_id"] for row in rows], ["3", "2", "1"])
        self.assertEqual([row["target"] for row in rows], ["triad", "dot", "triad"])
        self.assertEqual(rows[2]["params"], "n=1000")
        self.assertEqual(rows[2]["status"], "ok")
        self.assertAlmostEqual(float(rows[2]["ai_dram"]), TRIAD_AI, places=4)
        self.assertEqual(rows[2]["ai_dram_source"], "model")
        self.assertEqual(float(rows[1]["ai_dram"]), 0.125)  # dot: 2 FLOPs per 16 bytes
        for row in rows:
            self.assertGreater(float(row["time_s"]), 0)
            self.assertEqual(row["gflops_source"], "model")

    def test_history_json(self):
        r = self.rprof_ok("history", "--format", "json")
        runs = json.loads(r.stdout)
        self.assertEqual([run["run_id"] for run in runs], [3, 2, 1])
        self.assertEqual(runs[0]["params"], {"n": 2000})
        self.assertEqual(runs[0]["repetitions"], 2)
        self.assertEqual(runs[2]["tags"], {"lab": "00"})
        self.assertEqual(runs[1]["metrics"]["flops"]["model"]["value"], 2000)

    def test_history_filters(self):
        def ids(*args):
            out = self.rprof_ok("history", "--format", "json", *args).stdout
            return [run["run_id"] for run in json.loads(out)]

        self.assertEqual(ids("--kernel", "triad"), [3, 1])
        self.assertEqual(ids("--kernel", "copy"), [])
        self.assertEqual(ids("--tag", "lab=00"), [1])
        self.assertEqual(ids("--tag", "lab=01", "--kernel", "triad"), [])
        self.assertEqual(ids("--limit", "1"), [3])
        self.assertEqual(ids("-n", "2"), [3, 2])
        self.assertEqual(ids("--status", "ok"), [3, 2, 1])
        self.assertEqual(ids("--status", "interrupted"), [])
        self.assertEqual(ids("--since", "2000-01-01"), [3, 2, 1])
        self.assertEqual(ids("--since", "9999"), [])

    def test_show_in_every_format(self):
        as_run = self.run_json("triad", *FAST_RUN, "--tag", "who=ci", "--tag", "lab=00")
        run_id = str(as_run["run_id"])
        shown = json.loads(self.rprof_ok("show", run_id, "--format", "json").stdout)
        # A counter's spread over the repetitions is stored with it (migration 011); time_s's
        # comes from the stored samples.
        self.assertIn("spread_pct", as_run["metrics"]["perf::TASK-CLOCK"]["pmu"])
        self.assertEqual(shown, as_run, "show must print what run printed, from the store")

        table = self.rprof_ok("show", run_id).stdout
        self.assertRegex(table.splitlines()[0], rf"^run {run_id}  triad  n=1000  fp64  ok$")
        rows = table_rows(table)
        self.assertEqual(rows[("flops", "model")], ("2000", "FLOP"))
        self.assertEqual(rows[("ai_dram", "model")], ("0.08333", "FLOP/B"))

        csv_rows = list(csv.DictReader(io.StringIO(
            self.rprof_ok("show", run_id, "--format", "csv").stdout)))
        self.assertEqual({row["run_id"] for row in csv_rows}, {run_id})
        self.assertEqual(len(csv_rows), sum(len(s) for s in as_run["metrics"].values()))
        by_key = {(row["metric"], row["source"]): row for row in csv_rows}
        self.assertEqual(float(by_key[("bytes_dram", "model")]["value"]), 24000)


class Spread(RprofTestCase):
    """perf stat -r's "+- x %": each metric counted over 2 repetitions or more carries the
    standard deviation of its mean as a percentage of the mean, in JSON (spread_pct) and in the
    table beside its unit; a program's CPUs utilized is CPU time / wall time."""

    def test_kernel_counters_and_time_over_repetitions(self):
        doc = self.run_json("triad", "-p", "n=1000", "--repeat", "4", "--counters", "pmu")
        samples = doc["samples_s"]
        mean = sum(samples) / len(samples)
        sd = (sum((s - mean) ** 2 for s in samples) / (len(samples) - 1)) ** 0.5
        time = doc["metrics"]["time_s"]["clock"]
        self.assertAlmostEqual(time["spread_pct"], 100 * sd / len(samples) ** 0.5 / mean)
        self.assertGreaterEqual(doc["metrics"]["perf::TASK-CLOCK"]["pmu"]["spread_pct"], 0)
        self.assertNotIn("spread_pct", doc["metrics"]["flops"]["model"], "the model is exact")
        table = self.rprof_ok("show", str(doc["run_id"]), "-v").stdout
        header = next(line for line in table.splitlines() if line.startswith("metric "))
        self.assertEqual(header.split()[:5], ["metric", "value", "unit", "spread", "source"])
        self.assertRegex(table, r"\ntime_s +\S+ +s +\u00b1\d+\.\d\d% +clock ")

    def test_one_repetition_has_no_spread(self):
        doc = self.run_json("triad", "-p", "n=1000", "--repeat", "1", "--counters", "pmu")
        for name, by_source in doc["metrics"].items():
            for source, value in by_source.items():
                self.assertNotIn("spread_pct", value, (name, source))
        self.assertNotIn(" spread ", self.rprof_ok("show", str(doc["run_id"])).stdout)

    def test_a_program_over_executions_and_its_cpus_utilized(self):
        report = self.path("report.json")
        self.rprof_ok("run", "--counters", "pmu", "--repeat", "3", "--format", "json", "-o",
                      report, "/bin/sh", "-c", "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done")
        with open(report) as f:
            doc = json.load(f)
        cpu = doc["metrics"]["cpu_time_s"]["clock"]
        self.assertIn("spread_pct", cpu)
        self.assertIn("spread_pct", doc["metrics"]["perf::TASK-CLOCK"]["pmu"])
        cpus = doc["metrics"]["cpus_utilized"]["clock"]
        self.assertEqual(cpus["unit"], "CPUs")
        self.assertAlmostEqual(cpus["value"],
                               cpu["value"] / doc["metrics"]["time_s"]["clock"]["value"])
        shown = self.rprof_ok("show", str(doc["run_id"])).stdout
        self.assertRegex(shown, r"\ncpu: \d+\.\d\d CPUs utilized \(CPU time ")


class Kernels(RprofTestCase):
    def test_kernels_in_every_format(self):
        listed = json.loads(self.rprof_ok("kernels", "--format", "json", db=False).stdout)
        names = [k["name"] for k in listed]
        self.assertEqual(names[:10], ["copy", "scale", "add", "triad", "dot", "dot-fp32",
                                      "matmul-naive", "matmul-naive-fp32", "matmul-ikj",
                                      "matmul-ikj-fp32"])
        self.assertEqual(len(names), len(set(names)))
        triad = listed[names.index("triad")]
        self.assertEqual(triad["flops"], "2*n")
        self.assertEqual(triad["bytes"], "24*n")
        self.assertEqual(triad["precision"], "fp64")
        self.assertEqual(triad["origin"], "builtin")
        self.assertEqual(triad["params"], [{"name": "n", "description": triad["params"][0][
            "description"], "default": 10000000, "min": 1, "max": 2000000000}])
        self.assertEqual(listed[names.index("matmul-naive-fp32")]["precision"], "fp32")

        rows = list(csv.DictReader(io.StringIO(self.rprof_ok("kernels", "--format", "csv",
                                                             db=False).stdout)))
        self.assertEqual([row["name"] for row in rows], names)
        csv_triad = rows[names.index("triad")]
        self.assertEqual(csv_triad["params"], "n=10000000 [1..2000000000]")
        self.assertEqual((csv_triad["flops"], csv_triad["bytes"]), ("2*n", "24*n"))

        table = self.rprof_ok("kernels", db=False).stdout
        lines = table.splitlines()
        self.assertEqual(lines[0].split()[:2], ["kernel", "prec"])
        self.assertEqual([line.split()[0] for line in lines[1:1 + len(names)]], names)
        self.assertIn("compulsory traffic", table)
        self.assertFalse(os.path.exists(self.db), "listing kernels needs no database")

    def test_every_kernel_runs_at_a_tiny_size(self):
        listed = json.loads(self.rprof_ok("kernels", "--format", "json", db=False).stdout)
        self.assertTrue(listed)
        for run_id, kernel in enumerate(listed, start=1):
            with self.subTest(kernel=kernel["name"]):
                # Every size parameter at most 64 (within its range); the others at their default.
                params = {p["name"]: p["default"] for p in kernel["params"]}
                for p in kernel["params"]:
                    if p["name"] not in ("threads", "b", "block"):
                        params[p["name"]] = max(p["min"], min(p["default"], 64))
                flags = [f for name, value in params.items() for f in ("-p", f"{name}={value}")]
                # pmu only: the sim source has its own tests, and would make this one slow.
                out = self.run_json(kernel["name"], *flags, "--repeat", "1", "--counters", "pmu")
                self.assertEqual(out["run_id"], run_id)
                self.assertEqual(out["status"], "ok")
                self.assertEqual(out["params"], params)
                self.assertEqual(out["repetitions"], 1)
                model = out["metrics"]
                self.assertEqual(model["flops"]["model"]["value"],
                                 evaluate_formula(kernel["flops"], params))
                self.assertEqual(model["bytes_dram"]["model"]["value"],
                                 evaluate_formula(kernel["bytes"], params))
                flop_metric = {"fp64": "flops_dp", "fp32": "flops_sp"}.get(kernel["precision"])
                if flop_metric:
                    self.assertEqual(model[flop_metric]["model"]["value"],
                                     model["flops"]["model"]["value"])
        self.assertEqual(self.query("select count(*), min(status), max(status) from runs"),
                         [(len(listed), "ok", "ok")])


class Interrupt(RprofTestCase):
    def test_sigint_stores_an_interrupted_run(self):
        # matmul-naive at n=256 takes tens of milliseconds per call, so the interrupt lands
        # between repetitions quickly; --min-time 30 makes the run long enough that only the
        # interrupt can end it in time.
        argv = self.command(["run", "matmul-naive", "-p", "n=256", "--min-time", "30"])
        proc = subprocess.Popen(argv, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            # A SIGINT before rprof installs its handler would simply kill it: wait for the
            # handler (SigCgt in /proc), then let the measurement run a while.
            started = time.monotonic()
            while not catches_sigint(proc.pid) and time.monotonic() - started < 20:
                self.assertIsNone(proc.poll(), "rprof ended before measuring")
                time.sleep(0.05)
            self.assertTrue(catches_sigint(proc.pid), "rprof never installed a SIGINT handler")
            time.sleep(max(0.0, 1.5 - (time.monotonic() - started)))
            self.assertIsNone(proc.poll(), "the run ended before it was interrupted")
            proc.send_signal(signal.SIGINT)
            sent = time.monotonic()
            stdout, stderr = proc.communicate(timeout=20)
            waited = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        r = rprof_harness.Result(argv[1:], proc.returncode, stdout, stderr)
        self.assertEqual(proc.returncode, 1, r)
        self.assertLess(waited, 5, "rprof took too long to stop after SIGINT")
        self.assertRegex(stderr, r"rprof: error: run 1 interrupted: interrupted by SIGINT during "
                                 r"the timed repetitions, after \d+ timed repetitions \(stored\)")
        self.assertRegex(stdout.splitlines()[0], r"^run 1  matmul-naive  n=256  fp64  interrupted$")
        rows = self.query("select id, status, repetitions, note from runs")
        self.assertEqual(len(rows), 1, rows)
        run_id, status, repetitions, note = rows[0]
        self.assertEqual(status, "interrupted")
        self.assertEqual(note, "interrupted by SIGINT during the timed repetitions, after "
                               f"{repetitions} timed repetitions")
        self.assertGreaterEqual(repetitions, 1)
        self.assertEqual(self.scalar("select count(*) from samples where run_id = ?", (run_id,)),
                         repetitions)


if __name__ == "__main__":
    rprof_harness.main()
