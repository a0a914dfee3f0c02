"""Hot functions without markers (issue 28), through the rprof binary under --counters sim: a
program with two noinline functions, built -O2 -g (tests/cli_targets/hot_functions.c), gets each
function's FLOPs exactly, its placement (the triad memory-bound), a section in show and rows in
the run_functions view; its stripped copy names them by module and address, and says so;
--functions off counts none. Each function's time, sampled from the native executions
(cpu-clock), is within 25 % of what marker regions around the same calls measure, with sim and
without it (pmu, auto: the time profile alone, said, and no placement; hot lines by time
alone). Each function's hot lines: the matmul's and the triad's loop lines (marked in the source) with their exact FLOPs,
the triad's bytes per FLOP, time shares that add up to no more than their function's; none in
the stripped copy, said. A PolyBench-style kernel_gemm's FLOPs equal its marker region's;
numpy's BLAS kernel is a hot function of python3 np_mm.py. Names as perf report gives them (issue
37): python3's and libc's functions by symbol (libc's from libc6-dbg's debug file where it is
installed), code without one by its unwind entry's start, never a row's; hot functions listed
heaviest first. The sim tests skip where valgrind is missing."""

import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rprof_harness import (SANITIZED, SANITIZED_SKIP, WITHOUT_ELFUTILS,  # noqa: E402
                           WITHOUT_ELFUTILS_SKIP, RprofTestCase, main)
from fixtures import insert_profile  # noqa: E402

TARGETS = os.environ.get("RPROF_CLI_TARGETS", "")
# The fixtures' sources (np_mm.py runs from there).
TARGETS_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli_targets")
SOURCE = os.path.join(TARGETS_SOURCE, "hot_functions.c")
LOOPS_SOURCE = os.path.join(TARGETS_SOURCE, "hot_loops.c")
N = 1 << 20  # triad's elements (hot_functions.c)
M = 160      # matmul's size
REPS = 2     # triad's repetitions: kept small, the replay runs under valgrind


class HotFunctions(RprofTestCase):
    def setUp(self):
        super().setUp()
        if SANITIZED:
            self.skipTest(SANITIZED_SKIP)
        # A machine profile to place against: made by SQL, as the other sim tests do, on the
        # machine row a first (model-only) run stores.
        self.rprof_program_ok("run", "--counters", "model", "--functions", "off", "/bin/true")
        insert_profile(self.db)

    def need_valgrind(self):
        if shutil.which("valgrind") is None:
            self.skipTest("valgrind is not installed (Debian: apt-get install valgrind)")

    def sim_run(self, program, *extra, args=(str(REPS),)):
        self.need_valgrind()
        out_path = self.path("run.json")
        self.rprof_program_ok("run", "--counters", "sim", "--format", "json", "-o", out_path,
                              *extra, os.path.join(TARGETS, program), *args, timeout=600)
        with open(out_path) as f:
            return json.load(f)

    def assertPlacedOrTooFewSamples(self, function):
        """A function is placed, with a verdict, unless too few of its native executions'
        samples fell in it for a time (issue 38: fewer than 30, or none): then it is not placed,
        and says so."""
        placement = function["placement"]
        if placement["placed"]:
            self.assertTrue(placement["verdict"], placement)
            return
        self.assertRegex(placement["reason"],
                         r"^(\d+ samples: too few for a rate|no cpu-clock sample fell)", placement)
        self.assertIsNone(function["time_s"]["clock"]["value"], function["time_s"])

    @staticmethod
    def region_cpu_time(out, name):
        """Marker region `name`'s CPU time: the pmu's task clock where it counted the region,
        else its wall time x the run's CPUs utilized (the fixtures are one thread that never
        sleeps: on a loaded machine it waited for a CPU inside the region as outside it)."""
        region = out["regions"][name]
        task_clock = region.get("perf::TASK-CLOCK", {}).get("pmu", {}).get("value")
        if task_clock:
            return task_clock / 1e9
        utilized = out["metrics"]["cpus_utilized"]["clock"]["value"]
        return region["time_s"]["clock"]["value"] * min(1.0, utilized)

    @staticmethod
    def marked_line(name, source=SOURCE):
        """The number of the source line marked "hot line: NAME" in `source`."""
        with open(source) as f:
            for number, text in enumerate(f, 1):
                if f"/* hot line: {name} */" in text:
                    return number
        raise AssertionError(f"no line marked 'hot line: {name}' in {source}")

    def check_hot_lines(self, functions, matmuls=1, reps=REPS):
        """Each function's hot lines: its loop line first by FLOPs, exact; time shares sane."""
        triad, matmul = functions["triad"], functions["matmul"]
        for name, function in (("triad", triad), ("matmul", matmul)):
            lines = function["lines"]
            self.assertTrue(lines, f"{name}: {function.get('lines_reason')}")
            self.assertLessEqual(function["hot_lines"]["sim"]["value"], 10)
            self.assertEqual(function["hot_lines"]["sim"]["value"], len(lines))
            # Its hottest line by FLOPs is the loop's, the line the source marks.
            by_flops = max(lines, key=lambda l: l.get("flops", {}).get("sim", {}).get("value", 0))
            self.assertEqual(by_flops["line"], self.marked_line(name), lines)
            self.assertTrue(by_flops["file"].endswith("hot_functions.c"), by_flops["file"])
            # Time shares: each within [0, 1], together no more than the function's.
            shares = [l["time_share"]["clock"]["value"] for l in lines if "time_share" in l]
            shares = [v for v in shares if v is not None]
            for share in shares:
                self.assertGreaterEqual(share, 0)
                self.assertLessEqual(share, 1)
            if "time_share" in function and function["time_share"]["clock"]["value"] is not None:
                self.assertLessEqual(sum(shares),
                                     function["time_share"]["clock"]["value"] + 1e-9, lines)
            for line in lines:
                # Every line shown has time or FLOPs (a line with neither is skipped).
                flops = line.get("flops", {}).get("sim", {}).get("value") or 0
                share = (line.get("time_share", {}).get("clock", {}).get("value")) or 0
                self.assertTrue(flops > 0 or share > 0, line)
        # The loop body is one line: all of the function's FLOPs are its line's, exactly.
        matmul_line = next(l for l in matmul["lines"] if l["line"] == self.marked_line("matmul"))
        self.assertEqual(matmul_line["flops"]["sim"]["value"], 2 * M ** 3 * matmuls)
        triad_line = next(l for l in triad["lines"] if l["line"] == self.marked_line("triad"))
        self.assertEqual(triad_line["flops"]["sim"]["value"], 2 * N * reps)
        # The triad's line streams its 24 bytes per 2 FLOPs past every cache that cannot hold
        # 24 MiB: at least 1 byte per FLOP at DRAM where the simulated last level is smaller.
        # Where it holds them (Zen 5's 32 MiB L3 here), DRAM sees only what the L3 loses, a
        # fraction that shrinks with the repetitions; the stream then crosses L2<->L3 instead.
        per_flop = triad_line["bytes_per_flop"]
        self.assertGreaterEqual(per_flop["l2"]["sim"], 12 * 0.9, per_flop)
        note = triad_line["bytes_dram"]["sim"]["note"]
        levels = re.findall(r"\bL(\d) (\d+) B\b", note)
        self.assertTrue(levels, note)
        last_level, last_bytes = max((int(k), int(size)) for k, size in levels)
        if last_bytes < 24 * N:
            self.assertGreaterEqual(per_flop["dram"]["sim"], 1, per_flop)
        else:
            self.assertIn(last_level, (3,), note)
            self.assertGreaterEqual(per_flop["l3"]["sim"], 12 * 0.9, per_flop)
            self.assertIsNotNone(per_flop["dram"]["sim"], per_flop)
        self.assertAlmostEqual(per_flop["l1"]["sim"],
                               triad_line["bytes_l1"]["sim"]["value"] / (2 * N * reps))
        # Lines are no regions of their own, and have no placement.
        self.assertFalse([r for r in functions if r.startswith("ln:")])
        self.assertNotIn("placement", triad_line)

    def test_a_replay_that_ran_other_code_is_said_and_its_widths_not_used(self):
        # Issue 36: OpenBLAS ran its AVX-512 kernel natively and its AVX2 one under valgrind
        # (whose CPUID hides AVX-512), and rprof judged the timed code by the replay's widths.
        # This fixture does the same by RUNNING_ON_VALGRIND: natively native_sum, replayed
        # replayed_sum. The natively hot function the replay never ran is named, in a metric and
        # a trust note, and sim's vector widths are not the run's instruction mix.
        out = self.sim_run("replay_dispatch", "--flops", "3.2e8", "--bytes", "1.28e9",
                           args=("40",))
        missing = out["metrics"]["replay_missing_share"]["sim"]
        # The sum itself: about a third of the samples (filling the array is main's).
        self.assertGreater(missing["value"], 0.2, missing)
        self.assertIn("native_sum", missing["note"])
        self.assertNotIn("replayed_sum", missing["note"])
        trust = [t for t in out["trust"] if t["kind"] == "replay_ran_other_code"]
        self.assertEqual(len(trust), 1, out["trust"])
        self.assertIn("native_sum", trust[0]["detail"])
        self.assertIn("replayed_sum", out["functions"])
        placement = out["placement"]
        self.assertIn("replay ran other code", placement["isa_note"], placement)
        self.assertNotIn("would allow", placement["verdict"], placement)
        self.assertNotIn("scalar code", placement["verdict"], placement)

    def test_each_function_counted_exactly_and_placed(self):
        # 8 native executions: each function's samples (about 9 of the triad's an execution)
        # are enough for a time and so a rate (issue 38: 30 at least).
        out = self.sim_run("hot_functions", "--repeat", "8")
        functions = out["functions"]
        self.assertIn("triad", functions, sorted(functions))
        self.assertIn("matmul", functions, sorted(functions))
        triad, matmul = functions["triad"], functions["matmul"]
        # Exact FLOPs: one mul and one add per element and repetition; 2 M^3 for the matmul.
        self.assertEqual(triad["flops"]["sim"]["value"], 2 * N * REPS)
        self.assertEqual(triad["flops_dp"]["sim"]["value"], 2 * N * REPS)
        self.assertEqual(matmul["flops"]["sim"]["value"], 2 * M ** 3)
        # The whole run holds both (and main's few, if any).
        self.assertGreaterEqual(out["metrics"]["flops"]["sim"]["value"], 2 * N * REPS + 2 * M ** 3)
        # The triad streams 24 MiB, far beyond L1 and L2 (it may fit a 32 MiB L3: DRAM's share
        # depends on the machine): at least its 24 bytes per element cross L1<->L2, and it is
        # memory-bound.
        self.assertGreaterEqual(triad["bytes_l2"]["sim"]["value"], 24 * N * REPS * 0.9)
        placement = triad["placement"]
        self.assertTrue(placement["placed"], placement)
        self.assertIn("bandwidth", placement["binding"], placement)
        self.assertIn("bandwidth", placement["bound"], placement)
        # Where the code is: this source file, its loop's lines.
        self.assertTrue(triad["source"]["file"].endswith("hot_functions.c"), triad["source"])
        first, last = triad["source"]["lines"]
        self.assertLessEqual(first, last)
        self.assertIn("its symbol", triad["instructions"]["sim"]["note"])
        # Functions are not marker regions.
        self.assertNotIn("fn:triad", out["regions"])
        # Stored: the run_functions view, and show's section.
        rows = self.query("select function, flops, file from run_functions where run_id = ?"
                          " order by function", (out["run_id"],))
        by_name = {r[0]: r for r in rows}
        self.assertEqual(by_name["triad"][1], 2 * N * REPS)
        self.assertEqual(by_name["matmul"][1], 2 * M ** 3)
        self.assertTrue(by_name["triad"][2].endswith("hot_functions.c"))
        # history finds the runs a function was hot in.
        history = self.rprof_ok("history", "--function", "triad", "--format", "json").stdout
        self.assertEqual([r["run_id"] for r in json.loads(history)], [out["run_id"]])
        history = self.rprof_ok("history", "--function", "no_such_function", "--format",
                                "json").stdout
        self.assertEqual(json.loads(history), [])
        shown = self.rprof_ok("show", str(out["run_id"]), "-v").stdout
        self.assertIn("\nfunction triad\n", shown)
        self.assertIn("\nfunction matmul\n", shown)
        shown_json = json.loads(self.rprof_ok("show", str(out["run_id"]), "--format", "json").stdout)
        self.assertEqual(shown_json["functions"]["triad"]["flops"]["sim"]["value"], 2 * N * REPS)
        # Hot lines: in the run's JSON and show's, and under each function in show's table,
        # which keeps to 80 columns.
        self.check_hot_lines(functions)
        self.check_hot_lines(shown_json["functions"])
        self.assertFalse([r for r in out["regions"] if r.startswith("ln:")], out["regions"])
        shown = self.rprof_ok("show", str(out["run_id"]), "-v",
                             env=dict(self.env, COLUMNS="80")).stdout
        self.assertIn("\nhot lines of matmul ", shown)
        self.assertIn(f"hot_functions.c:{self.marked_line('matmul')} ", shown)
        self.assertIn(f"hot_functions.c:{self.marked_line('triad')} ", shown)
        table = shown[shown.index("\nhot lines of triad"):].split("\n\n")[0]
        for row in table.splitlines():
            self.assertLessEqual(len(row), 80, table)
        self.assertNotIn("\nregion ln:", shown)
        # Stored with the run: the line regions' metrics, each with its source (clock: the
        # time share, where the native run was sampled).
        rows = self.query("select distinct source from metrics where run_id = ? and region like"
                          " 'ln:triad@%'", (out["run_id"],))
        sampled = "time_share" in functions["triad"]
        self.assertEqual(sorted(r[0] for r in rows), ["clock", "sim"] if sampled else ["sim"])

    def test_inlined_code_and_loops_on_the_users_lines(self):
        # Issue 38: a helper always inlined from a header has its FLOPs (and its time) on the
        # line that calls it, not on the header's; a loop whose `for` line and body line differ
        # is one hot line, a line range, with both its time and its FLOPs.
        reps = 5000
        out = self.sim_run("hot_loops", args=(str(reps),))
        n = 4096
        functions = out["functions"]
        sampled = out["functions"]["dot"].get("time_share", {}).get("clock", {}).get("value")
        axpy, dot = functions["axpy"]["lines"], functions["dot"]["lines"]
        # axpy: all its FLOPs on its own line, which says where they were inlined from; no line
        # of the header, neither counted nor sampled.
        line = self.marked_line("axpy", LOOPS_SOURCE)
        for entry in axpy:
            self.assertTrue(entry["file"].endswith("hot_loops.c"), axpy)
        by_flops = max(axpy, key=lambda l: l.get("flops", {}).get("sim", {}).get("value", 0))
        self.assertEqual((by_flops["line"], by_flops.get("last_line")), (line, None), axpy)
        self.assertEqual(by_flops["flops"]["sim"]["value"], 2 * n * reps)
        self.assertIn("inlined from hot_loops_helper.h:", by_flops["instructions"]["sim"]["note"])
        # dot: the loop's `for` line to its body's line, one entry with the FLOPs and the time.
        first, body = (self.marked_line("dot loop", LOOPS_SOURCE),
                       self.marked_line("dot body", LOOPS_SOURCE))
        loop = max(dot, key=lambda l: l.get("flops", {}).get("sim", {}).get("value", 0))
        self.assertEqual((loop["line"], loop["last_line"]), (first, body), dot)
        self.assertEqual(loop["flops"]["sim"]["value"], 2 * n * reps)
        self.assertEqual(loop["line_last"]["sim"]["value"], body)
        self.assertIn(f"the loop on lines {first}-{body}", loop["instructions"]["sim"]["note"])
        self.assertFalse([l for l in dot if l is not loop and first <= l["line"] <= body], dot)
        if sampled:
            # Nearly all of dot's time is its inner loop's: on that entry, not split off.
            self.assertGreater(loop["time_share"]["clock"]["value"], 0.5 * sampled, dot)
        # A range only where an entry is a loop's lines.
        for entry in axpy + dot:
            self.assertLess(entry["line"], entry.get("last_line", entry["line"] + 1), entry)
        shown = self.rprof_ok("show", str(out["run_id"]), "-v",
                              env=dict(self.env, COLUMNS="80")).stdout
        table = shown[shown.index("\nhot lines of dot "):].split("\n\n")[0]
        self.assertIn(f"hot_loops.c:{first}-{body} ", table)
        table = shown[shown.index("\nhot lines of axpy "):].split("\n\n")[0]
        self.assertIn(f"hot_loops.c:{line} ", table)
        self.assertNotIn("hot_loops_helper.h", table)

    def test_stripped_binary_names_functions_by_module_and_address(self):
        out = self.sim_run("hot_functions_stripped")
        functions = out["functions"]
        by_flops = {f["flops"]["sim"]["value"]: name for name, f in functions.items()}
        # Each function apart (its unwind-table entry), its FLOPs exact, named by address.
        self.assertIn(2 * N * REPS, by_flops, functions.keys())
        self.assertIn(2 * M ** 3, by_flops, functions.keys())
        for flops in (2 * N * REPS, 2 * M ** 3):
            name = by_flops[flops]
            self.assertTrue(name.startswith("hot_functions_stripped+0x"), name)
            self.assertIn("code without a symbol in", functions[name]["instructions"]["sim"]["note"])
            # No debug information, no lines: said, not an error.
            self.assertIsNone(functions[name]["lines"])
            self.assertIn("no line information", functions[name]["lines_reason"])
            self.assertIsNone(functions[name]["hot_lines"]["sim"]["value"])

    def test_functions_off_counts_none(self):
        out = self.sim_run("hot_functions", "--functions", "off")
        self.assertEqual(out["functions"], {})
        self.assertGreaterEqual(out["metrics"]["flops"]["sim"]["value"], 2 * N * REPS + 2 * M ** 3)

    def test_sampled_time_matches_marker_regions(self):
        # The same executions give both: the program with marker regions around the calls (its
        # functions are the same), sampled. Long enough for a few hundred samples (one per 0.5 ms
        # of CPU time): 40 triads and 10 matmuls, each about 50 ms natively here; 3 executions.
        # (Two separate runs would differ by the load of this shared machine alone.)
        out = self.sim_run("hot_functions_markers", "--repeat", "3", args=("40", "10"))
        for name in ("triad", "matmul"):
            time = out["functions"][name]["time_s"]["clock"]
            self.assertIn("cpu-clock samples", time["note"])
            self.assertIn("binomial standard error", time["note"])
            # A function's time is its CPU time (issue 38): the region's, load or not.
            region_time = self.region_cpu_time(out, name)
            self.assertAlmostEqual(time["value"] / region_time, 1, delta=0.25,
                                   msg=f"{name}: sampled {time['value']} s, region {region_time} s"
                                       f" ({time['note']})")
            share = out["functions"][name]["time_share"]["clock"]["value"]
            self.assertGreater(share, 0)
            self.assertLess(share, 1)
            # With a time, a rate: the function stands at a percentage of its roof.
            self.assertIsNotNone(out["functions"][name]["placement"].get("percent_of_roof"))
        # Hundreds of samples: each function's lines have time shares, no more than its own.
        self.check_hot_lines(out["functions"], matmuls=10, reps=40)
        for name in ("triad", "matmul"):
            loop = next(l for l in out["functions"][name]["lines"]
                        if l["line"] == self.marked_line(name))
            self.assertGreater(loop["time_share"]["clock"]["value"], 0, loop)
        # Marker regions and functions side by side, each in its own key.
        self.assertEqual(out["functions"]["triad"]["flops"]["sim"]["value"],
                         out["regions"]["triad"]["flops"]["sim"]["value"])

    def sgemm_kernel_under_sim(self, report, *argv):
        """OpenBLAS's sgemm kernel as `rprof run --counters sim ARGV` reports it: the one hot
        function named sgemm_kernel*. One OpenBLAS thread, and its Haswell kernels: valgrind
        cannot execute the AVX-512 ones it would choose on an AVX-512 machine."""
        self.need_valgrind()
        env = dict(self.env, OPENBLAS_NUM_THREADS="1", OPENBLAS_CORETYPE="Haswell")
        r = self.rprof("run", "--counters", "sim", "--format", "json", "-o", self.path(report),
                       *argv, env=env, timeout=600)
        self.assertExit(r, 0, "a second time, under valgrind")
        with open(self.path(report)) as f:
            out = json.load(f)
        kernels = [name for name in out["functions"] if name.startswith("sgemm_kernel")]
        self.assertEqual(len(kernels), 1, sorted(out["functions"]))
        return out["functions"][kernels[0]]

    def test_a_shared_librarys_kernel_is_a_hot_function(self):
        # OpenBLAS's sgemm kernel, from a C program (the np_mm.py does the same through
        # numpy): a function of a shared library, found, counted and placed on its own.
        program = os.path.join(TARGETS, "blas_region")
        if not os.path.exists(program):
            self.skipTest("blas_region was not built: meson found no openblas (libopenblas-dev)")
        n = 256
        # One thread: the run's roof is then the 1-thread one the inserted profile has whatever
        # the load (with two, CPU time / wall time chose 1 or 2 threads as the machine was busy
        # or not, and the profile has no 2-thread fp32 roof).
        kernel = self.sgemm_kernel_under_sim("b.json", program, str(n))
        # Two calls of 2 n^3 (a warm-up and the region's), nearly all in the kernel.
        self.assertAlmostEqual(kernel["flops_sp"]["sim"]["value"] / (4 * n ** 3), 1, delta=0.02)
        self.assertIn("libopenblas", kernel["instructions"]["sim"]["note"])
        self.assertPlacedOrTooFewSamples(kernel)

    def test_time_profile_alone_without_sim(self):
        # No source counts per function (pmu here, and auto, which does not execute a program a
        # second time): each hot function gets its sampled time and says it has nothing more.
        # The markers' regions time the same calls in the same executions (80 triads and 20
        # matmuls, about 0.1 s an execution: over a thousand samples in all).
        for counters in ("pmu", "auto"):
            out_path = self.path(f"{counters}.json")
            self.rprof_program_ok("run", "--counters", counters, "--repeat", "3", "--format",
                                  "json", "-o", out_path,
                                  os.path.join(TARGETS, "hot_functions_markers"), "80", "20")
            with open(out_path) as f:
                out = json.load(f)
            self.assertNotIn("sim", out["sources"], counters)
            functions = out["functions"]
            for name in ("triad", "matmul"):
                self.assertIn(name, functions, (counters, sorted(functions)))
                function = functions[name]
                time = function["time_s"]["clock"]
                self.assertIn("cpu-clock samples", time["note"])
                self.assertIn("no source here counts per function: the time profile alone",
                              time["note"])
                region_time = self.region_cpu_time(out, name)
                self.assertAlmostEqual(time["value"] / region_time, 1, delta=0.25,
                                       msg=f"{counters} {name}: sampled {time['value']} s, "
                                           f"region {region_time} s ({time['note']})")
                self.assertTrue(0 < function["time_share"]["clock"]["value"] < 1)
                # Nothing made up: no FLOPs, no bytes, and no point on the roofline, said why.
                self.assertNotIn("flops", function)
                self.assertNotIn("bytes_dram", function)
                self.assertFalse(function["placement"]["placed"])
                self.assertIn("no source here counts per function",
                              function["placement"]["reason"])
                self.assertIn("--counters sim counts each function's FLOPs and bytes",
                              function["placement"]["reason"])
                # Its hot lines by time alone: the loop's line (marked in the source) first,
                # the shares within the function's, no FLOPs or bytes made up for a line.
                lines = function["lines"]
                self.assertTrue(lines, (counters, name, function.get("lines_reason")))
                self.assertEqual(function["hot_lines"]["clock"]["value"], len(lines))
                self.assertIn("no FLOPs or bytes per line", function["hot_lines"]["clock"]["note"])
                self.assertEqual(lines[0]["line"], self.marked_line(name), lines)
                shares = [l["time_share"]["clock"]["value"] for l in lines]
                self.assertEqual(shares, sorted(shares, reverse=True))
                self.assertTrue(all(v > 0 for v in shares), lines)
                self.assertLessEqual(sum(shares),
                                     function["time_share"]["clock"]["value"] + 1e-9)
                for line in lines:
                    self.assertNotIn("flops", line)
                    self.assertEqual(line["bytes_per_flop"], {})
            # Stored as hot functions: show, history --function and the run_functions view.
            shown = self.rprof_ok("show", str(out["run_id"]), "-v").stdout
            self.assertIn("\nfunction triad\n", shown)
            self.assertIn("\nhot lines of triad (time: cpu-clock samples)\n", shown)
            rows = self.query("select function, time_s, flops from run_functions where run_id = ?"
                              " and function = 'matmul'", (out["run_id"],))
            self.assertEqual(len(rows), 1)
            self.assertGreater(rows[0][1], 0)
            self.assertIsNone(rows[0][2])
        history = self.rprof_ok("history", "--function", "triad", "--format", "json").stdout
        self.assertEqual(len(json.loads(history)), 2)
        # --functions off: not sampled, none.
        out_path = self.path("off.json")
        self.rprof_program_ok("run", "--counters", "pmu", "--functions", "off", "--format",
                              "json", "-o", out_path, os.path.join(TARGETS, "hot_functions"), "2")
        with open(out_path) as f:
            self.assertEqual(json.load(f)["functions"], {})

    def test_polybench_style_kernel_function_counts_what_its_region_does(self):
        # PolyBench/C's shape: a static noinline kernel_gemm() called from main between marker
        # calls; the function's FLOPs must be the region's exactly, and PolyBench's formula as
        # the compiler keeps it (alpha * A[i][k] hoisted out of the j loop: one multiply per
        # (i, k), a multiply and an add per (i, k, j); one multiply by beta per (i, j)).
        # GCC clones kernel_gemm for its constant arguments (kernel_gemm.constprop.0), as it
        # does PolyBench's own: the function as compiled, under its compiled name.
        out = self.sim_run("polybench_gemm", "--repeat", "8", args=())
        names = [name for name in out["functions"] if name.split(".")[0] == "kernel_gemm"]
        self.assertEqual(len(names), 1, sorted(out["functions"]))
        kernel = out["functions"][names[0]]
        region = out["regions"]["gemm"]
        self.assertEqual(kernel["flops"]["sim"]["value"], region["flops"]["sim"]["value"])
        ni, nj, nk = 200, 220, 240
        self.assertEqual(kernel["flops"]["sim"]["value"], ni * nj + ni * nk + 2 * ni * nj * nk)
        # Its loads and stores too, but for the marker library's own at the region's edges.
        self.assertAlmostEqual(kernel["bytes_l1"]["sim"]["value"] /
                               region["bytes_l1"]["sim"]["value"], 1, delta=1e-4)
        self.assertTrue(kernel["placement"]["placed"], kernel["placement"])

    def test_numpy_blas_kernel_is_a_hot_function(self):
        # The issue's `rprof --counters sim python3 np_mm.py`: numpy's float32 matmul lands in
        # the BLAS library numpy links (OpenBLAS here, behind libblas.so.3), whose sgemm kernel
        # is a hot function of its own, placed. /usr/bin/python3: Debian's numpy (PATH's
        # python3 may be another interpreter without it).
        python = "/usr/bin/python3"
        probe = subprocess.run([python, "-c", "import numpy"], capture_output=True, text=True)
        if probe.returncode != 0:
            self.skipTest(f"{python} has no numpy (Debian: python3-numpy): "
                          f"{probe.stderr.strip()[-200:]}")
        n, reps = 128, 3
        kernel = self.sgemm_kernel_under_sim(
            "np.json", python, os.path.join(TARGETS_SOURCE, "np_mm.py"), str(n), str(reps))
        # Nearly all of the products' 2 n^3 FLOPs each, in fp32.
        self.assertAlmostEqual(kernel["flops_sp"]["sim"]["value"] / (2 * n ** 3 * reps), 1,
                               delta=0.05)
        # Named in its own library (libblas.so.3 is OpenBLAS's libopenblasp here).
        self.assertIn("blas", kernel["instructions"]["sim"]["note"])
        self.assertPlacedOrTooFewSamples(kernel)

    # Issue 37: function names as perf report gives them. A hot function is named by its symbol
    # from the file's .symtab, its separate debug file (build id, .gnu_debuglink) or .dynsym;
    # only code no symbol covers is named "module+0xSTART", START where its function's unwind
    # entry (FDE) starts, never one of the entry's rows (python3.11's _PyEval_EvalFrameDefault's
    # neighbours came out as five "functions").
    NAIVE_PY = ("n = 40\n"
                "a = [[float(i * n + j) for j in range(n)] for i in range(n)]\n"
                "b = [[float(i - j) for j in range(n)] for i in range(n)]\n"
                "c = [[0.0] * n for _ in range(n)]\n"
                "for i in range(n):\n"
                "    for j in range(n):\n"
                "        s = 0.0\n"
                "        for k in range(n):\n"
                "            s += a[i][k] * b[k][j]\n"
                "        c[i][j] = s\n"
                "print(c[n - 1][n - 1])\n")
    SORT_AND_COPY_C = r"""
#include <stdlib.h>
#include <string.h>
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10000;
  double* a = malloc(n * sizeof *a);
  double* b = malloc(n * sizeof *b);
  unsigned s = 1;
  for (int r = 0; r < 8; ++r) {
    for (int i = 0; i < n; ++i) { s = s * 1103515245u + 12345u; a[i] = s >> 8; }
    for (int k = 0; k < 40; ++k) memcpy(b, a, n * sizeof *a);
    qsort(b, n, sizeof *b, cmp);
  }
  return b[0] < 0;  /* 0: the run is a success */
}
"""

    @staticmethod
    def unnamed_code(functions):
        """{name: (object, start)} of the hot functions no symbol named, from their notes."""
        out = {}
        for name, f in functions.items():
            note = f["instructions"]["sim"]["note"]
            m = re.match(r"code without a symbol in (/\S+?): ", note)
            if m:
                start = re.search(r"\+0x([0-9a-f]+)", name)
                out[name] = (m.group(1), int(start.group(1), 16) if start else None)
        return out

    @staticmethod
    def fde_starts(path):
        """The start of every unwind-table entry (FDE) of `path`, by readelf, not rprof."""
        text = subprocess.run(["readelf", "--debug-dump=frames", path], capture_output=True,
                              text=True).stdout
        return {int(a, 16) for a in re.findall(r" FDE cie=\S+ pc=([0-9a-f]+)\.\.", text)}

    @staticmethod
    def symbol_covering(path, address):
        """The function symbol of `path` (nm: .symtab, else .dynsym) covering `address`."""
        for args in (["nm", "-S", "--defined-only", path],
                     ["nm", "-D", "-S", "--defined-only", path]):
            text = subprocess.run(args, capture_output=True, text=True).stdout
            for line in text.splitlines():
                fields = line.split()
                if len(fields) == 4 and fields[2] in "tTwWiI":
                    start, size = int(fields[0], 16), int(fields[1], 16)
                    if start <= address < start + size:
                        return fields[3]
        return None

    def check_no_fragments(self, functions):
        """Every function without a symbol starts where an FDE starts, and no symbol covers it."""
        if shutil.which("readelf") is None or shutil.which("nm") is None:
            self.skipTest("binutils (readelf, nm) is not installed: nothing to check names by")
        starts = {}
        for name, (path, start) in self.unnamed_code(functions).items():
            self.assertIsNotNone(start, name)
            if path not in starts:
                starts[path] = self.fde_starts(path)
            self.assertTrue(start in starts[path],
                            f"{name}: not where an unwind entry of {path} starts (a fragment "
                            f"of a function, one of its unwind rows)")
            self.assertIsNone(self.symbol_covering(path, start),
                              f"{name}: a symbol of {path} names it")

    def libc_debug_file(self):
        """The path of libc's debug file under /usr/lib/debug/.build-id, or None."""
        libc = "/lib/x86_64-linux-gnu/libc.so.6"
        if shutil.which("readelf") is None or not os.path.exists(libc):
            return None
        notes = subprocess.run(["readelf", "-n", libc], capture_output=True, text=True).stdout
        m = re.search(r"Build ID: ([0-9a-f]+)", notes)
        if not m:
            return None
        debug = f"/usr/lib/debug/.build-id/{m.group(1)[:2]}/{m.group(1)[2:]}.debug"
        return debug if os.path.exists(debug) else None

    def test_python_functions_named_by_symbol_else_by_their_start(self):
        python = "/usr/bin/python3"
        if not os.path.exists(python):
            self.skipTest(f"{python} is not installed")
        script = self.path("naive.py")
        with open(script, "w") as f:
            f.write(self.NAIVE_PY)
        out = self.sim_run(python, args=(script,))
        functions = out["functions"]
        # The interpreter's loop, exported by python3.11 (.dynsym), by its symbol.
        self.assertIn("_PyEval_EvalFrameDefault", functions, sorted(functions))
        self.check_no_fragments(functions)
        # Each function once: no two names for one start in one module.
        unnamed = list(self.unnamed_code(functions).values())
        self.assertEqual(len(unnamed), len(set(unnamed)), unnamed)

    def test_libc_functions_named_from_its_debug_file(self):
        if shutil.which("gcc") is None:
            self.skipTest("gcc is not installed: no fixture to call qsort and memcpy")
        program = self.path("sort_and_copy")
        with open(program + ".c", "w") as f:
            f.write(self.SORT_AND_COPY_C)
        subprocess.run(["gcc", "-O2", "-o", program, program + ".c"], check=True)
        out = self.sim_run(program, args=("10000",))
        functions = out["functions"]
        self.check_no_fragments(functions)
        libc = {name: f["instructions"]["sim"]["note"] for name, f in functions.items()
                if "/libc.so.6" in f["instructions"]["sim"]["note"]}
        # Most of the time is qsort's (msort_with_tmp) and memcpy's: hot by their sampled time
        # only where the native samples are named as the replay's functions are.
        self.assertTrue(libc, f"no hot function in libc: {sorted(functions)}")
        with self.subTest("libc's own functions named from /usr/lib/debug"):
            if self.libc_debug_file() is None:
                self.skipTest("libc's debug file is not under /usr/lib/debug/.build-id "
                              "(Debian: apt-get install libc6-dbg): its static functions "
                              "(qsort's msort_with_tmp, memcpy's variants) have no symbol here")
            unnamed = [name for name, note in libc.items() if "code without a symbol" in note]
            self.assertEqual(unnamed, [], libc)
            msort = [name for name in libc if name.startswith("msort_with_tmp")]
            self.assertEqual(len(msort), 1, libc)
            self.assertTrue(any("mem" in name for name in libc), libc)
            # The native run's samples are named as the replay's counts are, so that they meet:
            # qsort's worker has its time, and no natively hot libc code is "missing" from the
            # replay under an address of its own.
            if any("time_share" in f for f in functions.values()):
                share = functions[msort[0]].get("time_share", {}).get("clock", {}).get("value")
                self.assertGreater(share or 0, 0, functions[msort[0]])
            missing = out["metrics"].get("replay_missing_share", {}).get("sim", {})
            self.assertNotIn("libc.so.6+0x", missing.get("note", ""), missing)
            # Without sim (the time profile alone), the sampler names them the same way.
            profile_path = self.path("profile.json")
            self.rprof_program_ok("run", "--counters", "auto", "--format", "json", "-o",
                                  profile_path, program, "100000")
            with open(profile_path) as f:
                sampled = json.load(f)["functions"]
            # A second of sorting: hundreds of samples, most of them in libc; none where the
            # kernel refuses cpu-clock sampling (said in the run's notes, not tested here).
            if not sampled:
                self.skipTest("no function was sampled (perf_event_open refused cpu-clock?)")
            self.assertFalse([n for n in sampled if n.startswith("libc.so.6+0x")],
                             sorted(sampled))
            self.assertTrue(any(n.startswith("msort_with_tmp") for n in sampled),
                            sorted(sampled))

    def test_hot_functions_listed_heaviest_first(self):
        # Not alphabetically: by sampled time where the run has it, else by sim's instructions;
        # in JSON's "functions" and in the text report alike.
        out = self.sim_run("hot_functions")
        functions = out["functions"]
        sampled = any("time_share" in f for f in functions.values())

        def weight(name):
            f = functions[name]
            if sampled:
                return (f.get("time_share", {}).get("clock", {}).get("value") or 0,
                        f["instructions"]["sim"]["value"])
            return (f["instructions"]["sim"]["value"], 0)

        names = list(functions)
        self.assertGreaterEqual(len(names), 2, names)
        self.assertEqual(names, sorted(names, key=weight, reverse=True),
                         [(n, weight(n)) for n in names])
        shown = self.rprof_ok("show", str(out["run_id"]), "-v").stdout
        order = re.findall(r"^function (.+)$", shown, re.M)
        self.assertEqual(order, names, shown)

    def test_functions_option_is_checked(self):
        r = self.rprof("run", "--functions", "many", "/bin/true")
        self.assertError(r, 2, "--functions many: use a count from 1 to 1000, or off")


if __name__ == "__main__":
    if WITHOUT_ELFUTILS:  # every test here names, samples or unwinds functions
        print(f"skipped: {WITHOUT_ELFUTILS_SKIP}")
        sys.exit(77)
    main()
