"""LIKWID's marker API on rprof's (profiler/include/rprof/likwid/likwid-marker.h): a program written
for LIKWID, START and STOP inside `#pragma omp parallel`, built with -DLIKWID_PERFMON against
rprof's header and library, has its region measured under rprof; built without, its macros are
gone and it links no marker library.

Started by meson as `python3 likwid_marker_test.py PATH/TO/rprof`; the programs come through
RPROF_CLI_TARGETS (tests/cli_targets: likwid_markers and likwid_markers_off).
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from elf_file import ElfFile  # noqa: E402
from rprof_harness import RprofTestCase, main  # noqa: E402

PASSES = 4
THREADS = 2


def program(name):
    folder = os.environ.get("RPROF_CLI_TARGETS")
    if not folder:
        raise unittest.SkipTest("RPROF_CLI_TARGETS not set (meson sets it)")
    return os.path.join(folder, name)


class LikwidMarkers(RprofTestCase):
    def run_program(self, name):
        # The report to a file of its own: a program's stdout stays the program's.
        path = self.path("report.json")
        r = self.rprof("run", "--counters", "pmu", "--format", "json", "-o", path, program(name),
                       str(PASSES))
        self.assertEqual(r.returncode, 0, r)
        with open(path) as f:
            report = json.load(f)
        return r.stdout.rstrip("\n"), report

    def test_region_in_a_parallel_region_is_measured(self):
        first, report = self.run_program("likwid_markers")
        self.assertTrue(first.startswith("likwid_markers: LIKWID_PERFMON, "), first)
        # GET hands back no values: rprof reports them, after the run.
        self.assertTrue(first.endswith(f"{THREADS} threads x {PASSES} passes, sum 5199988, "
                                       "get: nevents=0 count=0"), first)
        self.assertIsNone(report["note"])
        self.assertEqual(sorted(report["regions"]), ["sum"])
        region = report["regions"]["sum"]
        self.assertEqual(region["calls"]["clock"]["value"], THREADS * PASSES)
        # OpenMP keeps its threads from one parallel region to the next; without it each pass
        # starts threads of its own.
        threads = THREADS if ", openmp, " in first else THREADS * PASSES
        self.assertEqual(region["threads"]["clock"]["value"], threads)
        time_s = region["time_s"]["clock"]["value"]
        self.assertGreater(time_s, 0)
        self.assertLessEqual(time_s, report["metrics"]["time_s"]["clock"]["value"])
        self.assertGreaterEqual(region["thread_time_s"]["clock"]["value"], time_s)
        stored = self.query("select value from metrics where region = 'sum' and name = 'calls'")
        self.assertEqual(stored, [(THREADS * PASSES,)])

    def test_without_likwid_perfmon_the_macros_are_gone(self):
        self.assertNotIn("librprof-marker.so.1", ElfFile(program("likwid_markers_off")).needed())
        first, report = self.run_program("likwid_markers_off")
        # The same work, GET left its variables as they were.
        self.assertTrue(first.startswith("likwid_markers: no LIKWID_PERFMON, "), first)
        self.assertTrue(first.endswith(f"{THREADS} threads x {PASSES} passes, sum 5199988, "
                                       "get: nevents=10 count=-1"), first)
        self.assertEqual(report["regions"], {})
        # No marker region stored (the program's hot functions, fn:NAME, and their hot lines,
        # ln:NAME@FILE:LINE, are its own).
        self.assertEqual(self.query("select count(*) from metrics where region != '' and"
                                    " region not like 'fn:%' and region not like 'ln:%'"),
                         [(0,)])


if __name__ == "__main__":
    main()
