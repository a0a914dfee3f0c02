"""The text for people fits the terminal: with COLUMNS=80 every line every command prints is at
most 80 columns (no exception: a token longer than its column is cut, never left to overflow),
a remedy is said once in a run's report, and CSV and JSON keep every value whole. COLUMNS=0
asks for no limit."""

import csv
import io
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from fixtures import insert_profile  # noqa: E402
from rprof_harness import FAST_RUN, RprofTestCase  # noqa: E402

WIDTH = 80
LONG_ARGUMENT = "--a-very-long-option-name-that-no-column-has-room-for=" + "x" * 90


class Widths(RprofTestCase):
    def setUp(self):
        super().setUp()
        self.env["COLUMNS"] = str(WIDTH)

    def text(self, *args, stream="stdout", **kwargs):
        """The text rprof ARGS prints on `stream`, asserted successful."""
        r = self.rprof(*args, **kwargs)
        self.assertEqual(r.returncode, 0, r)
        return getattr(r, stream)

    def assertFits(self, text, what):
        self.assertTrue(text.strip(), f"{what} printed nothing")
        for line in text.splitlines():
            self.assertLessEqual(len(line), WIDTH, f"{what}: a line of {len(line)} columns:\n"
                                 f"{line}\nin\n{text}")

    def seed(self):
        """A kernel run, a program run with a long argument, a failed program and a profile."""
        self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        self.rprof("run", "--counters", "pmu", "-o", self.path("r2"), "/bin/true", LONG_ARGUMENT)
        self.rprof("run", "--counters", "pmu", "-o", self.path("r3"), "/bin/false")
        insert_profile(self.db)

    def test_every_command_fits_80_columns(self):
        self.seed()
        commands = [
            ["kernels"], ["history"], ["show", "1"], ["show", "2"], ["show", "3"],
            ["show", "1", "-v"], ["show", "2", "-v"], ["show", "3", "-v"],
            ["compare", "1", "2", "--force"], ["events"], ["doctor"], ["machine", "show"],
            ["machine", "list"], ["query", "select * from run_summary"],
            ["calibrate", "--show"], ["--help"],
        ] + [["help", c] for c in ["run", "kernels", "history", "show", "compare", "plot",
                                     "validate", "query", "events", "calibrate", "doctor"]]
        for args in commands:
            with self.subTest(command=args):
                r = self.rprof(*args)
                self.assertIn(r.returncode, (0, 3), r)  # doctor: 3 where it cannot count FLOPs
                self.assertFits(r.stdout, " ".join(args))

    def test_history_keeps_every_target_name_and_word_whole(self):
        # Issue 30: at 80 columns history printed 'matmul-nai / ve n=384', '(compulsor / y' and
        # a start time cut in two. Words and numbers are never cut now; a column that cannot
        # fit is left out and said.
        for args in [["matmul-naive", "-p", "n=48"], ["matmul-ikj-fp32", "-p", "n=32"],
                     ["triad", "-p", "n=1000000"], ["dot-fp32", "-p", "n=1000"]]:
            self.rprof_ok("run", *args, "--repeat", "2", "--counters", "model", "-q")
        insert_profile(self.db)
        for args in [["matmul-naive", "-p", "n=48"], ["triad", "-p", "n=1000000"]]:
            self.rprof_ok("run", *args, "--repeat", "2", "--counters", "model", "-q")  # placed
        text = self.text("history")
        self.assertFits(text, "history")
        runs = json.loads(self.text("history", "--format", "json"))
        lines = text.splitlines()
        # A table (its header on the first line), not one record a run.
        self.assertEqual(lines[0].split()[:3], ["run", "target", "status"], text)
        for run in runs:
            for word in [run["target"]] + [f"{k}={v}" for k, v in run["params"].items()]:
                self.assertTrue(any(word in line for line in lines), f"{word!r} cut in\n{text}")
            bound = (run.get("placement") or {}).get("bound_text") or ""
            for word in bound.split():
                self.assertTrue(any(word.rstrip(",") in line for line in lines),
                                f"{word!r} cut in\n{text}")
        self.assertIn("(left out to fit 80 columns: started (UTC)", text)

    def test_history_keeps_long_program_names_whole(self):
        # Issue 38: '…/hot_functions_' / 'markers 2' at 80 columns, and at 120 '…/' /
        # 'averyveryverylongprogramname': a program's name is typed back, never cut, whether
        # alone in a table or among others.
        names = ["hot_functions_markers", "stencil_3d_heat_diffusion",
                 "averyveryverylongprogramname"]
        databases = {name: self.path(name + ".db") for name in names}
        databases["all"] = self.db
        for name in names:
            program = self.path(name)
            shutil.copy("/bin/true", program)
            for db in (databases[name], self.db):
                r = self.rprof("run", "--counters", "model", "-q", program, "2", db=db)
                self.assertEqual(r.returncode, 0, r)
        for width in (80, 120):
            self.env["COLUMNS"] = str(width)
            for which, db in databases.items():
                r = self.rprof("history", db=db)
                self.assertEqual(r.returncode, 0, r)
                lines = r.stdout.splitlines()
                for line in lines:
                    self.assertLessEqual(len(line), width, f"history at {width}:\n{r.stdout}")
                for name in names if which == "all" else [which]:
                    self.assertTrue(any("\u2026/" + name in line for line in lines),
                                    f"{name!r} cut at {width} columns:\n{r.stdout}")

    def test_a_run_report_fits_80_columns(self):
        self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        insert_profile(self.db)  # so that the report ends in its placement
        self.assertFits(self.text("run", "triad", *FAST_RUN), "run triad")
        self.assertFits(self.text("run", "-v", "triad", *FAST_RUN), "run -v triad")
        self.assertFits(self.text("run", "--counters", "pmu", "/bin/true", LONG_ARGUMENT,
                                  stream="stderr"), "run /bin/true")

    def test_a_sim_run_says_each_long_note_once(self):
        if not shutil.which("valgrind"):
            self.skipTest("valgrind is not installed: no sim run")
        # The full report (-v): the default one has no notes to say once.
        out = self.text("run", "-v", "triad", "-p", "n=1000", "--repeat", "3", "--counters",
                        "sim")
        self.assertFits(out, "run triad --counters sim")
        self.assertIn("\nnotes:\n", out)
        # The simulated cache geometry stands under every cache metric: once in the notes
        # (rprofsim: "LRU, write-allocate, write-back at every level"; callgrind: "LL is
        # inclusive, write-allocate, LRU").
        words = " ".join(out.split())  # as read, whatever line each word is on
        self.assertEqual(words.count("write-allocate"), 1, out)

    def test_the_hypervisor_remedy_is_said_once(self):
        doc = self.run_json("triad", *FAST_RUN)
        missing = [m for m in ("PAPI_TOT_INS", "PAPI_TOT_CYC")
                   if doc["metrics"][m]["pmu"]["value"] is None]
        if not missing:
            self.skipTest("this machine counts hardware events: no remedy to give")
        remedy = doc["metrics"][missing[0]]["pmu"]["note"].split("; ", 1)[-1]
        out = self.text("show", str(doc["run_id"]), "-v")
        self.assertEqual(" ".join(out.split()).count(remedy), 1, out)
        self.assertIn("see note 1", out)
        # JSON and CSV keep every note whole.
        self.assertIn(remedy, json.dumps(doc["metrics"]))
        rows = list(csv.DictReader(io.StringIO(self.text("show", str(doc["run_id"]), "--format",
                                                         "csv"))))
        self.assertIn(remedy, [row["note"] for row in rows if row["metric"] == missing[0]][0])

    def test_csv_and_json_are_never_cut(self):
        rows = list(csv.DictReader(io.StringIO(self.text("kernels", "--format", "csv"))))
        self.assertGreater(max(len(row["description"]) for row in rows), 60)
        kernels = json.loads(self.text("kernels", "--format", "json"))
        self.assertEqual({k["name"]: k["description"] for k in kernels},
                         {row["name"]: row["description"] for row in rows})

    def test_columns_0_is_no_limit(self):
        self.env["COLUMNS"] = "0"
        rows = list(csv.DictReader(io.StringIO(self.text("kernels", "--format", "csv"))))
        out = self.text("kernels")
        for row in rows:
            line = next(line for line in out.splitlines() if line.startswith(row["name"] + " "))
            self.assertTrue(line.endswith(row["description"]), line)

    def test_a_pipe_without_columns_gets_80(self):
        self.env.pop("COLUMNS")
        self.assertFits(self.text("kernels"), "kernels")


if __name__ == "__main__":
    rprof_harness.main()
