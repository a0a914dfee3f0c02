"""One screen by default (issue 38): `rprof run` and `rprof show` print a report that fits a
terminal (the verdict, the figures that decided it, the hot functions by time with a shared
library's folded into one line, the regions), -v the full one; history at 80 columns keeps
every target's name whole. Real rprof, the sim source (valgrind), temporary databases."""

import json
import os
import re
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rprof_harness import SANITIZED, SANITIZED_SKIP, RprofTestCase, main  # noqa: E402
from fixtures import insert_profile  # noqa: E402

TARGETS = os.environ.get("RPROF_CLI_TARGETS", "")
SYSTEM_PYTHON = "/usr/bin/python3"
# A pure-Python matmul, as a user would profile one: no rprof module, no markers.
NAIVE = """\
    import sys
    n = int(sys.argv[1])
    a = [[1.0 + i + j for j in range(n)] for i in range(n)]
    b = [[2.0 - i + j for j in range(n)] for i in range(n)]
    c = [[sum(a[i][k] * b[k][j] for k in range(n)) for j in range(n)] for i in range(n)]
    print(len(c))
    """


class OneScreen(RprofTestCase):
    def setUp(self):
        super().setUp()
        if SANITIZED:
            self.skipTest(SANITIZED_SKIP)
        if not TARGETS:
            self.skipTest("RPROF_CLI_TARGETS is not set (meson sets it)")
        self.env["COLUMNS"] = "80"
        self.rprof_program_ok("run", "--counters", "model", "--functions", "off", "/bin/true",
                              "-q")
        insert_profile(self.db)

    def last_id(self):
        return str(self.scalar("select max(id) from runs"))

    def assertFitsScreen(self, text, lines):
        self.assertLessEqual(len(text.splitlines()), lines, text)
        for line in text.splitlines():
            # rprof's notices ("executing … under valgrind") are not the report's.
            if not line.startswith("rprof: "):
                self.assertLessEqual(len(line), 80, text)

    def test_c_program_report_fits_a_screen_and_v_is_the_full_report(self):
        program = os.path.join(TARGETS, "hot_functions")
        run = self.rprof_program_ok("run", "--counters", "sim", program, "2")
        report = run.stderr
        self.assertFitsScreen(report, 40)
        run_id = self.last_id()
        self.assertIn("run " + run_id + "  ", report)
        self.assertIn("roofline (machine profile", report)
        for figure in ("time_s", "flops", "gflops"):
            self.assertRegex(report, r"\n%s +\S" % figure)
        # Its 3 hot functions, by time, in one table; the rest one flag away.
        self.assertIn("hot functions by", report)
        for function in ("main", "triad", "matmul"):
            self.assertRegex(report, r"\n%s +" % function)
        self.assertNotIn("\nfunction triad\n", report)
        self.assertRegex(report, r"\b\d+ functions?\b.*: rprof show")
        self.assertIn("rprof show " + run_id + " -v", report)

        # show prints the same one screen; -v the full report, as it always was.
        shown = self.rprof_ok("show", run_id).stdout
        self.assertFitsScreen(shown, 40)
        self.assertIn("hot functions by", shown)
        full = self.rprof_ok("show", run_id, "-v").stdout
        self.assertEqual(full, self.rprof_ok("show", run_id, "--verbose").stdout)
        self.assertGreater(len(full.splitlines()), 100)
        for part in ("\nfunction main\n", "\nfunction triad\n", "\nfunction matmul\n",
                     "hot lines of triad", "\nnotes:\n", "\nregions on the roofline:\n"):
            self.assertIn(part, full)
        # Every metric of the run is in the full report.
        data = json.loads(self.rprof_ok("show", run_id, "-f", "json").stdout)
        for name in data["metrics"]:
            self.assertRegex(full, r"\n%s +\S" % re.escape(name))
        # Scripts see no difference: JSON and CSV are whole either way.
        for fmt in ("json", "csv"):
            self.assertEqual(self.rprof_ok("show", run_id, "-f", fmt).stdout,
                             self.rprof_ok("show", run_id, "-f", fmt, "-v").stdout)

        # run -v prints the full report too (the one flag that also prints each rank's).
        verbose = self.rprof_program_ok("run", "--counters", "sim", "-v", program, "2").stderr
        self.assertIn("\nfunction triad\n", verbose)
        self.assertIn("\nnotes:\n", verbose)

    def test_python_script_report_fits_a_screen(self):
        with open(self.path("naive.py"), "w") as f:
            f.write(textwrap.dedent(NAIVE))
        if not os.path.exists(SYSTEM_PYTHON):
            self.skipTest(SYSTEM_PYTHON + " not found")
        run = self.rprof_program_ok("run", "--counters", "sim", SYSTEM_PYTHON,
                                    self.path("naive.py"), "40")
        report = run.stderr
        self.assertFitsScreen(report, 60)
        self.assertIn("hot functions by", report)
        # At most 5 of them, the rest counted.
        table = report[report.index("hot functions by"):]
        rows = table.split("\n\n")[0].splitlines()[2:]
        self.assertLessEqual(len([r for r in rows if not r.startswith("  and ")]), 5, report)
        self.assertRegex(report, r"\d+ functions")
        # A shared library's functions are one line: no library appears twice.
        libraries = re.findall(r"^(lib\S+\.so[.\d]*) \(\d+ functions\)", table, re.M)
        self.assertEqual(len(libraries), len(set(libraries)), report)

    def test_history_keeps_target_names_whole_at_80_columns(self):
        program = os.path.join(TARGETS, "hot_functions")
        quick = ["run", "-q", "--counters", "model", "--functions", "off"]
        self.rprof_program_ok(*quick, program, "2")
        self.rprof_program_ok(*quick, program)
        self.rprof_program_ok(*quick, SYSTEM_PYTHON, "-c", "pass")
        history = self.rprof_ok("history").stdout
        for line in history.splitlines():
            self.assertLessEqual(len(line), 80, history)
        for name in ("hot_functions", "python3", "true"):
            self.assertRegex(history, r"(^|[ /])%s( |$)" % name, history)


if __name__ == "__main__":
    main()
