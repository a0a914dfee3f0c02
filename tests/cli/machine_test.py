"""`rprof machine measure|show|list` end to end: one real quick measurement (shared by the
tests of one class, each of which gets its own copy of the database), what it prints in each
format, what it stores (checked with sqlite3), the orderings the issue asks of a measured
profile, bad input, an interrupted measurement, and a run placed on the stored profile.

Orderings are checked with a 0.9x allowance for noise. As in machine_ceilings_test.cc, an
ordering that fails on a profile that itself warns of competing load is skipped with the
profile's warnings rather than failed: a busy machine halves ceilings, and the profile says so.
"""

import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from fixtures import catches_sigint, insert_profile  # noqa: E402
from rprof_harness import Result, RprofTestCase, copy_database  # noqa: E402

NOISE = 0.9  # a faster rung must reach at least 0.9x the slower one
LEVELS = ["l1", "l2", "l3", "dram"]
SECTIONS = ["compute ceilings (GFLOP/s)", "bandwidth ceilings (GB/s)",
            "memory hierarchy (1 thread)"]


def best_roof(ceilings, precision, threads=1):
    """The best compute ceiling of a precision at a thread count that can be a roof: a mul+add
    more than 5 % above the FMA of its ISA, precision and threads is noise (FMA does 2 FLOPs an
    instruction) and never the roof; within 5 % it ties the FMA (Zen 5's add pipes)."""
    fma = {(c["isa"], c["precision"], c["threads"]): c["value"] for c in ceilings
           if c["kind"] == "compute" and c["pattern"] == "fma"}
    return max((c for c in ceilings if c["kind"] == "compute" and c["threads"] == threads
                and c["precision"] == precision
                and not (c["pattern"] == "mul_add"
                         and c["value"] > 1.05 * fma.get((c["isa"], c["precision"],
                                                          c["threads"]), float("inf")))),
               key=lambda c: c["value"])


class InterruptMixin:
    def measure_and_interrupt(self, after_s=2.0):
        """Starts `machine measure --full`, sends SIGINT `after_s` seconds after rprof installed
        its handler, and returns the Result and how long rprof took to stop."""
        argv = self.command(["machine", "measure", "--full"])
        proc = subprocess.Popen(argv, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            # A SIGINT before rprof installs its handler would simply kill it: wait for the
            # handler (SigCgt in /proc), then let the measurement run a while.
            started = time.monotonic()
            while not catches_sigint(proc.pid) and time.monotonic() - started < 20:
                self.assertIsNone(proc.poll(), "rprof ended before measuring")
                time.sleep(0.02)
            self.assertTrue(catches_sigint(proc.pid), "rprof never installed a SIGINT handler")
            time.sleep(after_s)
            self.assertIsNone(proc.poll(), "a --full measurement ended within seconds")
            proc.send_signal(signal.SIGINT)
            sent = time.monotonic()
            stdout, stderr = proc.communicate(timeout=60)
            waited = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        return Result(argv[1:], proc.returncode, stdout, stderr), waited

    def assertInterrupted(self, result, waited):
        self.assertError(result, 1, "machine measure interrupted", "no profile stored")
        self.assertLess(waited, 10, "rprof took too long to stop after SIGINT")


class MeasuredMachine(RprofTestCase, InterruptMixin):
    """Tests on one `rprof machine measure --quick`."""

    @classmethod
    def setUpClass(cls):
        cls.class_tmp = tempfile.mkdtemp(prefix="rprof-machine-")
        cls.measured_db = os.path.join(cls.class_tmp, "measured.db")
        env = dict(os.environ)
        env.pop("RPROF_DB", None)
        env["HOME"] = os.path.join(cls.class_tmp, "home")
        env["XDG_DATA_HOME"] = os.path.join(cls.class_tmp, "xdg")
        env["LC_ALL"] = "C"
        env["COLUMNS"] = "0"  # as RprofTestCase's, so that show prints what measure printed
        args = ["machine", "measure", "--quick"]
        proc = subprocess.run([rprof_harness.RPROF, "--db", cls.measured_db] + args, env=env,
                              capture_output=True, text=True, timeout=300)
        cls.measure = Result(args, proc.returncode, proc.stdout, proc.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.class_tmp, ignore_errors=True)

    def setUp(self):
        super().setUp()
        self.assertEqual(self.measure.returncode, 0, self.measure)
        copy_database(self.measured_db, self.db)

    def profile_json(self):
        return json.loads(self.rprof_ok("machine", "show", "--format", "json").stdout)

    def busy_warnings(self, profile):
        return [w for w in profile["warnings"]
                if "other processes" in w or "load average" in w or "steal" in w]

    def assertOrdered(self, rungs, what):
        """rungs: [(name, value)] from the fastest to the slowest; each at least NOISE x the
        next."""
        profile = self.profile_json()
        bad = [f"{a} {va:.3g} < {NOISE} x {b} {vb:.3g}"
               for (a, va), (b, vb) in zip(rungs, rungs[1:]) if va < NOISE * vb]
        if bad and self.busy_warnings(profile):
            self.skipTest(f"{what} out of order ({'; '.join(bad)}) on a machine the profile "
                          f"reports as busy: {profile['warnings']}")
        self.assertEqual(bad, [], f"{what}: {rungs}")

    # --- what measure printed and stored -------------------------------------------------

    def test_measure_prints_the_ceilings_and_the_ladder(self):
        r = self.measure
        self.assertEqual(r.stderr, "", r)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^machine [0-9a-f]{16}  ")
        self.assertRegex(lines[1], r"^profile 1: quick, measured \d{4}-\d\d-\d\dT")
        self.assertTrue(any(line.startswith("ISA: ") for line in lines), r)
        self.assertRegex(r.stdout, r"clock: [\d.]+ GHz scalar, [\d.]+ GHz under vector FMA load")
        for section in SECTIONS:
            self.assertIn(section, lines)
        at = {section: lines.index(section) for section in SECTIONS}
        self.assertLess(at[SECTIONS[0]], at[SECTIONS[1]])
        self.assertLess(at[SECTIONS[1]], at[SECTIONS[2]])
        self.assertEqual(lines[at[SECTIONS[0]] + 1].split(),
                         ["ceiling", "precision", "isa", "op", "threads", "GFLOP/s", "spread", "%"])
        self.assertEqual(lines[at[SECTIONS[1]] + 1].split(),
                         ["ceiling", "level", "isa", "pattern", "threads", "working", "set",
                          "GB/s", "spread", "%"])
        compute_rows = [line.split()[0] for line in lines[at[SECTIONS[0]] + 2:at[SECTIONS[1]]]
                        if line.strip()]
        self.assertIn("fp64_scalar_fma", compute_rows)
        self.assertIn("fp32_scalar_add", compute_rows)
        bandwidth_rows = [line.split()[0] for line in lines[at[SECTIONS[1]] + 2:at[SECTIONS[2]]]
                          if line.strip()]
        self.assertIn("l1_load", bandwidth_rows)
        self.assertIn("dram_triad", bandwidth_rows)
        self.assertIn("l1_load_scalar", bandwidth_rows)
        # The ladder: level, reported size, effective size, latency ns, load GB/s; L1 first,
        # DRAM last.
        ladder_header = lines[at[SECTIONS[2]] + 1].split()
        self.assertEqual(ladder_header, ["level", "reported", "size", "effective", "size",
                                         "latency", "ns", "load", "GB/s"])
        ladder = []
        for line in lines[at[SECTIONS[2]] + 2:]:
            if not line.strip():
                break
            ladder.append(line.split())
        self.assertEqual(ladder[0][0], "l1")
        self.assertEqual(ladder[-1][0], "dram")
        self.assertEqual(ladder[-1][1:3], ["-", "-"], "DRAM has no size")
        for row in ladder:
            self.assertGreater(float(row[-1]), 0, row)  # load GB/s measured on every level

    def test_show_table_is_what_measure_printed(self):
        self.assertEqual(self.rprof_ok("machine", "show").stdout, self.measure.stdout)
        self.assertEqual(self.rprof_ok("machine", "show", "1").stdout, self.measure.stdout)

    def test_show_json(self):
        p = self.profile_json()
        for key in ["profile_id", "created_at", "machine", "mode", "threads", "isa",
                    "nominal_ghz", "clock_ghz_scalar", "clock_ghz_vector",
                    "load_average_before", "seconds", "warnings", "ceilings", "levels",
                    "latency", "bandwidth"]:
            self.assertIn(key, p)
        self.assertEqual(p["profile_id"], 1)
        self.assertEqual(p["mode"], "quick")
        self.assertGreaterEqual(p["threads"], 1)
        self.assertRegex(p["machine"]["fingerprint"], r"^[0-9a-f]{16}$")
        self.assertGreater(p["clock_ghz_scalar"], 0)
        self.assertTrue(p["ceilings"])
        for c in p["ceilings"]:
            for key in ["kind", "name", "level", "isa", "precision", "pattern", "threads",
                        "working_set_bytes", "value", "unit", "spread_pct", "repetitions"]:
                self.assertIn(key, c)
            self.assertIn(c["kind"], ["compute", "bandwidth"])
            self.assertEqual(c["unit"], "GFLOP/s" if c["kind"] == "compute" else "GB/s", c)
            self.assertGreater(c["value"], 0, c)
            self.assertIn(c["threads"], [1, p["threads"]], c)
            if c["kind"] == "compute":
                self.assertEqual(c["level"], "", c)
                self.assertEqual(c["name"], f"{c['precision']}_{c['isa']}_{c['pattern']}")
            else:
                self.assertIn(c["level"], LEVELS, c)
                if c["isa"] == "scalar":  # 8-byte loads, in the caches (the widths meet at DRAM)
                    self.assertEqual(c["name"], f"{c['level']}_load_scalar")
                    self.assertEqual(c["pattern"], "load")
                    self.assertNotEqual(c["level"], "dram")
                else:
                    self.assertEqual(c["name"], f"{c['level']}_{c['pattern']}")
                self.assertGreater(c["working_set_bytes"], 0, c)
        names = {(c["name"], c["threads"]) for c in p["ceilings"]}
        self.assertEqual(len(names), len(p["ceilings"]), "(name, threads) is unique")
        self.assertEqual([lv["level"] for lv in p["levels"]][0], "l1")
        self.assertEqual([lv["level"] for lv in p["levels"]][-1], "dram")
        for lv in p["levels"]:
            self.assertEqual(set(lv), {"level", "reported_size", "effective_size", "latency_ns",
                                       "bandwidth_gbs"})
        # The first profile of this machine: each measured size stands alone.
        self.assertFalse(p["noisy"] and not p["noisy_reasons"], p)
        sizes = {lv["level"]: lv for lv in p["level_sizes"]}
        self.assertNotIn("dram", sizes)
        for lv in p["levels"]:
            if lv["level"] != "dram" and lv["effective_size"]:
                self.assertEqual(sizes[lv["level"]]["size_agreement"], 1, sizes)
                self.assertEqual(sizes[lv["level"]]["effective_size"], lv["effective_size"])
        self.assertTrue(p["latency"])
        for point in p["latency"]:
            self.assertEqual(set(point), {"working_set_bytes", "ns", "spread_pct"})
            self.assertGreater(point["ns"], 0)
        self.assertTrue(p["bandwidth"])

    def test_show_csv(self):
        out = self.rprof_ok("machine", "show", "--format", "csv").stdout
        reader = csv.DictReader(io.StringIO(out))
        self.assertEqual(reader.fieldnames,
                         ["profile_id", "kind", "name", "level", "isa", "precision", "pattern",
                          "threads", "working_set_bytes", "value", "unit", "spread_pct"])
        rows = list(reader)
        as_json = self.profile_json()["ceilings"]
        self.assertEqual(len(rows), len(as_json))
        for row, c in zip(rows, as_json):
            self.assertEqual(row["profile_id"], "1")
            self.assertEqual((row["kind"], row["name"], int(row["threads"])),
                             (c["kind"], c["name"], c["threads"]))
            self.assertEqual(float(row["value"]), c["value"])  # full precision

    def test_list_in_every_format(self):
        profile = self.profile_json()
        table = self.rprof_ok("machine", "list").stdout.splitlines()
        self.assertEqual(table[0].split()[:3], ["profile", "created", "(UTC)"])
        self.assertEqual(len(table), 2, table)
        self.assertEqual(table[1].split()[0], "1")
        self.assertIn(profile["machine"]["fingerprint"], table[1])

        rows = list(csv.DictReader(io.StringIO(
            self.rprof_ok("machine", "list", "--format", "csv").stdout)))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["profile_id"], "1")
        self.assertEqual(rows[0]["mode"], "quick")
        self.assertEqual(rows[0]["fingerprint"], profile["machine"]["fingerprint"])
        best_1t = max(c["value"] for c in profile["ceilings"]
                      if c["kind"] == "compute" and c["threads"] == 1)
        self.assertAlmostEqual(float(rows[0]["peak_gflops_1t"]), best_1t, delta=0.051)

        listed = json.loads(self.rprof_ok("machine", "list", "--format", "json").stdout)
        self.assertEqual([p["profile_id"] for p in listed], [1])
        self.assertEqual(listed[0]["ceilings"], profile["ceilings"])
        self.assertNotIn("latency", listed[0], "the list carries no points")

    def test_stored_rows(self):
        profile = self.profile_json()
        self.assertEqual(self.query("select id, mode, threads from machine_profiles"),
                         [(1, "quick", profile["threads"])])
        self.assertEqual(self.query("select m.fingerprint from machines m join machine_profiles p"
                                    " on p.machine_id = m.id"),
                         [(profile["machine"]["fingerprint"],)])
        self.assertEqual(self.scalar("select count(*) from ceilings where profile_id = 1"),
                         len(profile["ceilings"]))
        self.assertEqual(self.scalar("select count(*) from ceilings where value <= 0"), 0)
        kinds = dict(self.query("select kind, count(*) from ceilings group by kind"))
        self.assertGreater(kinds.get("compute", 0), 0)
        self.assertGreater(kinds.get("bandwidth", 0), 0)
        self.assertEqual(self.scalar("select count(*) from latency_points where profile_id = 1"),
                         len(profile["latency"]))
        self.assertGreater(self.scalar("select count(*) from bandwidth_points"), 0)
        levels = [row[0] for row in self.query(
            "select level from memory_levels where profile_id = 1 order by rowid")]
        self.assertEqual(levels, [lv["level"] for lv in profile["levels"]])
        self.assertEqual(levels[0], "l1")
        self.assertEqual(levels[-1], "dram")

    # --- orderings -------------------------------------------------------------------------

    def test_compute_avx512_avx2_sse_scalar_fma_fp64_one_thread(self):
        values = {c["isa"]: c["value"] for c in self.profile_json()["ceilings"]
                  if c["kind"] == "compute" and c["precision"] == "fp64"
                  and c["pattern"] == "fma" and c["threads"] == 1}
        self.assertIn("scalar", values)
        self.assertIn("sse", values)
        rungs = [(isa, values[isa]) for isa in ["avx512", "avx2", "sse", "scalar"]
                 if isa in values]
        self.assertOrdered(rungs, "fp64 fma compute ceilings, 1 thread")

    def test_bandwidth_l1_l2_l3_dram_load_one_thread(self):
        values = {c["level"]: c["value"] for c in self.profile_json()["ceilings"]
                  if c["kind"] == "bandwidth" and c["pattern"] == "load" and c["threads"] == 1
                  and c["isa"] != "scalar"}
        self.assertIn("l1", values)
        self.assertIn("dram", values)
        rungs = [(level, values[level]) for level in LEVELS if level in values]
        self.assertOrdered(rungs, "load bandwidth ceilings, 1 thread")

    def test_latency_grows_with_the_working_set(self):
        points = sorted((p["working_set_bytes"], p["ns"]) for p in self.profile_json()["latency"])
        self.assertGreaterEqual(points[0][0], 16 * 1024)
        self.assertLessEqual(points[0][0], 32 * 1024, "the ladder starts inside L1")
        smallest, largest = points[0][1], points[-1][1]
        self.assertGreater(largest, 2 * smallest, points)  # DRAM is far slower than L1
        half = len(points) // 2
        self.assertGreater(max(ns for _, ns in points[half:]),
                           max(ns for _, ns in points[:half]), points)

    # --- show and measure on this database ---------------------------------------------------

    def test_show_unknown_id(self):
        r = self.rprof("machine", "show", "999")
        self.assertError(r, 2, "machine profile 999: no such profile", "rprof machine list")

    def test_interrupt_keeps_the_earlier_profile(self):
        before = self.query("select * from ceilings order by rowid")
        result, waited = self.measure_and_interrupt(after_s=1.0)
        self.assertInterrupted(result, waited)
        self.assertIn("earlier profiles", result.stderr)
        self.assertEqual(self.scalar("select count(*) from machine_profiles"), 1)
        self.assertEqual(self.query("select * from ceilings order by rowid"), before)

    # --- a run placed on the profile ---------------------------------------------------------

    def test_run_is_placed_on_the_profile(self):
        out = self.run_json("triad", "-p", "n=100000", "--repeat", "3", "--counters", "model")
        placement = out["placement"]
        self.assertTrue(placement["placed"], placement)
        self.assertIsNone(placement["reason"])
        self.assertEqual(placement["profile_id"], 1)
        self.assertTrue(placement["verdict"])
        self.assertRegex(placement["verdict"], r"-bound at \d+ % of its roof")
        self.assertEqual(placement["compute_ceiling"][:5], "fp64_", "an fp64 run, fp64 roof")
        # The compute roof is the best 1-thread fp64 ceiling of the profile (that can be one).
        ceilings = self.profile_json()["ceilings"]
        best = best_roof(ceilings, "fp64")
        self.assertEqual(placement["compute_ceiling"], best["name"])
        self.assertEqual(placement["peak_gflops"], best["value"])
        # triad's model intensity, 2 FLOPs per 24 bytes, on the DRAM level.
        dram = [lv for lv in placement["levels"] if lv["level"] == "dram"
                and lv["source"] == "model"]
        self.assertEqual(len(dram), 1, placement)
        self.assertAlmostEqual(dram[0]["ai"], 2 / 24, places=15)
        self.assertTrue(dram[0]["memory_bound"])
        self.assertAlmostEqual(dram[0]["attainable_gflops"],
                               dram[0]["ai"] * dram[0]["bandwidth_gbs"], places=9)
        self.assertAlmostEqual(placement["percent_of_roof"],
                               placement["achieved_gflops"] / placement["attainable_gflops"]
                               * 100, places=9)
        # The model's compulsory bytes against the compulsory ceiling; above 100 % (2.4 MB fit
        # in a cache here) never without the reason.
        self.assertEqual(dram[0]["bandwidth_convention"], "compulsory")
        if placement["percent_of_roof"] > 100:
            self.assertTrue(placement["note"], placement)
        else:
            self.assertIsNone(placement["note"], placement)

        run_id = out["run_id"]
        rows = self.query("select profile_id, compute_ceiling, peak_gflops, binding,"
                          " attainable_gflops, percent_of_roof, verdict from placements"
                          " where run_id = ?", (run_id,))
        self.assertEqual(rows, [(1, placement["compute_ceiling"], placement["peak_gflops"],
                                 placement["binding"], placement["attainable_gflops"],
                                 placement["percent_of_roof"], placement["verdict"])])
        summary = json.loads(self.rprof_ok("query", "select * from run_summary",
                                           "--format", "json").stdout)
        self.assertEqual(len(summary), 1)
        self.assertEqual(summary[0]["run_id"], run_id)
        self.assertEqual(summary[0]["target"], "triad")
        self.assertEqual(summary[0]["binding"], placement["binding"])
        self.assertEqual(summary[0]["percent_of_roof"], placement["percent_of_roof"])
        self.assertEqual(summary[0]["verdict"], placement["verdict"])
        self.assertEqual(summary[0]["gflops_source"], "model")

        # The table says it too, and `show` places the stored run on the same profile.
        shown = self.rprof_ok("show", str(run_id)).stdout
        self.assertIn("roofline (machine profile 1): ", shown)
        self.assertIn(placement["verdict"], shown)


    def test_a_model_only_compute_side_is_no_compute_bound(self):
        # Issue 13: naive matmul at n=384 with sim over budget was "compute-bound at 1 % of its
        # roof" on the model's compulsory bytes (AI 2 x 384 / 24 = 32 FLOP/B).
        out = self.run_json("matmul-naive", "-p", "n=384", "--repeat", "1", "--counters",
                            "auto", "--sim-budget", "0.1")
        placement = out["placement"]
        self.assertTrue(placement["placed"], placement)
        for key in ["placed", "reason", "profile_id", "compute_ceiling", "peak_gflops",
                    "achieved_gflops", "achieved_source", "binding", "attainable_gflops",
                    "percent_of_roof", "verdict", "isa_roof_ceiling", "isa_roof_gflops",
                    "isa_note", "levels", "bytes_compulsory_only"]:
            self.assertIn(key, placement)
        measured = [lv for lv in placement["levels"] if lv["source"] != "model"]
        if measured:
            self.skipTest(f"bytes were measured here ({measured[0]['source']}): not model-only")
        self.assertTrue(placement["bytes_compulsory_only"], placement)
        self.assertNotIn("compute-bound", placement["verdict"])
        if placement["binding"].startswith("compute"):
            self.assertTrue(placement["verdict"].startswith("compute-side by compulsory AI 32 ("),
                            placement["verdict"])
        self.assertIn("model bytes are a lower bound on traffic", placement["verdict"])
        self.assertIn("measured traffic unknown", placement["verdict"])
        # The table says the same.
        self.assertIn(placement["verdict"], self.rprof_ok("show", str(out["run_id"])).stdout)
        # And so does what is stored: history's bound column is no plain "compute", nor
        # "compute (compulsory bytes)", which students read as the answer (issue 24).
        self.assertEqual(self.query("select bytes_compulsory_only from placements where run_id = ?",
                                    (out["run_id"],)), [(1,)])
        history = self.rprof_ok("history", "--limit", "1").stdout
        if placement["binding"].startswith("compute"):
            self.assertIn("≥ compute side (model bytes only)", history)
            self.assertNotIn("compute (compulsory bytes)", history)

    def test_a_model_only_memory_bound_run_keeps_its_side(self):
        # Compulsory bytes are a lower bound: with more traffic a memory-bound run only moves
        # further left, so the side stands, and the verdict says the roof may be lower.
        out = self.run_json("triad", "-p", "n=2000000", "--repeat", "1", "--counters", "model")
        placement = out["placement"]
        self.assertTrue(placement["bytes_compulsory_only"], placement)
        self.assertRegex(placement["verdict"], r"^DRAM-bandwidth-bound at \d+ % of its roof")
        if placement["percent_of_roof"] <= 105:
            self.assertIn("model bytes are a lower bound on traffic", placement["verdict"])
        else:  # a cached working set: that verdict says why it is above the roof
            self.assertIn("above the DRAM roof", placement["verdict"])
        # Above 100 %, the reason is stored with the run, beside the verdict.
        stored = self.query("select note from placements where run_id = ?", (out["run_id"],))
        self.assertEqual(stored, [(placement["note"],)])
        if placement["percent_of_roof"] > 100:
            self.assertTrue(placement["note"], placement)

    def test_fp32_run_is_judged_on_fp32_ceilings(self):
        out = self.run_json("dot-fp32", "-p", "n=1000", "--repeat", "2", "--counters", "model")
        placement = out["placement"]
        self.assertEqual(out["precision"], "fp32")
        self.assertTrue(placement["placed"], placement)
        best = best_roof(self.profile_json()["ceilings"], "fp32")
        self.assertEqual(placement["compute_ceiling"], best["name"])
        self.assertEqual(placement["peak_gflops"], best["value"])

    # --- like with like: both byte conventions -----------------------------------------------

    def test_bandwidth_ceilings_are_stored_in_both_conventions(self):
        compulsory = {"load": 8, "copy": 16, "triad": 24, "copy_nt": 16}
        write_allocate = {"load": 0, "copy": 8, "triad": 8, "copy_nt": 0}
        ceilings = self.profile_json()["ceilings"]
        for c in ceilings:
            with self.subTest(ceiling=c["name"], threads=c["threads"]):
                if c["kind"] == "compute":
                    self.assertIsNone(c["bytes_per_element"])
                    self.assertIsNone(c["traffic_value"])
                    continue
                self.assertEqual(c["bytes_per_element"], compulsory[c["pattern"]])
                extra = 0 if c["level"] == "l1" else write_allocate[c["pattern"]]
                self.assertEqual(c["traffic_bytes_per_element"], c["bytes_per_element"] + extra)
                self.assertAlmostEqual(c["traffic_value"], c["value"] *
                                       c["traffic_bytes_per_element"] / c["bytes_per_element"],
                                       places=9)
        rows = self.query("select name, threads, value, traffic_value from ceilings"
                          " where kind = 'bandwidth'")
        shown = {(c["name"], c["threads"]): c["traffic_value"] for c in ceilings}
        self.assertTrue(rows)
        for name, threads, value, traffic in rows:
            self.assertAlmostEqual(traffic, shown[(name, threads)], places=9)

    def test_dram_sized_streams_under_sim_are_held_against_traffic_ceilings(self):
        if not shutil.which("valgrind"):
            self.skipTest("no valgrind: the sim source cannot run here")
        # Working sets beyond the last level sim simulates, so that its bytes come from DRAM:
        # the one the note names ("L3 503316480 B 16-way"), or, where that is too large to
        # stream past in seconds (a VM shown its host's 480 MiB L3), 32 MiB given with
        # --sim-cache.
        probe = self.run_json("copy", "-p", "n=1024", "--repeat", "1", "--counters", "sim")
        note = probe["metrics"]["bytes_dram"]["sim"]["note"] or ""
        levels = re.findall(r"\bL(\d)D? (\d+) B \d+-way", note)
        self.assertTrue(levels, note)
        last, ll = int(levels[-1][0]), int(levels[-1][1])
        geometry = []
        if ll > 64 << 20:
            ll = 32 << 20
            geometry = ["--sim-cache", f"l{last}=32M"]
        profile = self.profile_json()
        dram = [c for c in profile["ceilings"] if c["kind"] == "bandwidth"
                and c["level"] == "dram" and c["threads"] == 1 and c["pattern"] != "copy_nt"]
        roof_compulsory = max(c["value"] for c in dram)
        roof_traffic = max(c["traffic_value"] for c in dram)
        # Where this machine's 1-thread load curve reached DRAM's plateau: a VM's real caches
        # can hold more than sim simulates (the Intel guest's host L3 runs at L3 speed to 128 MiB,
        # its DRAM plateau starts at 362 MiB), and a run there moves sim's DRAM bytes faster
        # than DRAM's roof.
        dram_load = next(c["value"] for c in dram if c["pattern"] == "load")
        curve = sorted((b["working_set_bytes"], b["gbs"]) for b in profile["bandwidth"]
                       if b["threads"] == 1 and b["pattern"] == "load")
        dram_from = next(ws for i, (ws, _) in enumerate(curve)
                         if all(gbs < 1.15 * dram_load for _, gbs in curve[i:]))
        for kernel, per_element, traffic_per_element in [("copy", 16, 24), ("triad", 24, 32)]:
            n = int(1.15 * max(ll, 64 << 20) / per_element)
            with self.subTest(kernel=kernel, n=n):
                out = self.run_json(kernel, "-p", f"n={n}", "--repeat", "3",
                                    "--counters", "sim", *geometry, timeout=300)
                m = out["metrics"]
                # sim's bytes are actual traffic: write-allocate included.
                self.assertAlmostEqual(m["bytes_dram"]["sim"]["value"] /
                                       m["bytes_dram"]["model"]["value"],
                                       traffic_per_element / per_element, delta=0.05)
                p = out["placement"]
                self.assertTrue(p["placed"], p)
                from_cache = "sim's DRAM bytes above DRAM's roof: the time says they came from"
                if n * per_element < dram_from and from_cache in p["verdict"]:
                    # The measurement contradicts sim's level, and the verdict says so.
                    self.assertFalse(p["binding"].startswith("dram bandwidth ("), p)
                else:
                    self.assertTrue(p["binding"].startswith("dram bandwidth ("), p)
                    if not p["levels"]:  # copy: no FLOPs, its GB/s against the roof
                        self.assertIn(f"({roof_traffic:.3g} GB/s)", p["verdict"])
                for lv in p["levels"]:
                    if lv["level"] != "dram":
                        continue
                    want = "compulsory" if lv["source"] == "model" else "traffic"
                    self.assertEqual(lv["bandwidth_convention"], want, lv)
                    self.assertAlmostEqual(lv["bandwidth_gbs"], roof_compulsory
                                           if want == "compulsory" else roof_traffic, places=9)
                self.assertIsNotNone(p["percent_of_roof"], p)
                if p["percent_of_roof"] > 100:
                    self.assertTrue(p["note"], p)
                else:
                    self.assertIsNone(p["note"], p)

    def test_each_level_is_given_a_size_by_a_rule(self):
        # The reported size is the prior: one profile alone never replaces it with a measured
        # one unless the reported size is impossible (issue 25). sim simulates the given sizes.
        profile = self.profile_json()
        given = [lv for lv in profile["level_sizes"] if lv["rule"] is not None]
        self.assertTrue(given, profile["level_sizes"])
        for lv in given:
            with self.subTest(level=lv["level"]):
                self.assertIn(lv["rule"], ("reported", "reported_impossible"), lv)
                self.assertTrue(lv["reason"], lv)
                if lv["rule"] == "reported" and lv["reported_size"]:
                    self.assertEqual(lv["size_bytes"], lv["reported_size"], lv)
        self.assertEqual(self.query("select level, size_bytes, size_rule from memory_levels"
                                    " where profile_id = 1 and size_rule is not null"),
                         [(lv["level"], lv["size_bytes"], lv["rule"]) for lv in given])
        self.assertIn("size of each level", self.rprof_ok("machine", "show").stdout)
        # A cache level with DRAM's latency is not stored.
        levels = {lv["level"]: lv for lv in profile["levels"]}
        dram = levels["dram"]["latency_ns"]
        for name, lv in levels.items():
            if name != "dram" and lv["latency_ns"] and dram:
                self.assertLess(lv["latency_ns"], 0.75 * dram, lv)

    def test_a_second_profile_keeps_level_sizes_consistent(self):
        # Whatever the second measurement finds, each cache level either keeps profile 1's size
        # (within the sweep's resolution: agreed by 2 profiles now) or is a new size, agreed by
        # this profile alone, with a note naming profile 1.
        first = {lv["level"]: lv for lv in self.profile_json()["level_sizes"]}
        r = self.rprof_ok("machine", "measure", "--quick", "--wait", "0", "--format", "json")
        second = json.loads(r.stdout)
        self.assertEqual(second["profile_id"], 2)
        for lv in second["level_sizes"]:
            if not lv["effective_size"] or lv["level"] not in first:
                continue
            with self.subTest(level=lv["level"]):
                was = first[lv["level"]]
                if lv["size_agreement"] == 2:
                    self.assertEqual(lv["effective_size"], was["effective_size"], lv)
                else:
                    self.assertEqual(lv["size_agreement"], 1, lv)
                    self.assertIn("a new size: profile 1 measured", lv["note"])
        self.assertEqual(self.scalar("select count(*) from memory_levels where profile_id = 2"
                                     " and level <> 'dram' and effective_size > 0"
                                     " and size_agreement is null"), 0)


class WithoutProfile(RprofTestCase, InterruptMixin):
    def test_threads_out_of_range(self):
        for threads in ["0", "999", "-1"]:
            with self.subTest(threads=threads):
                r = self.rprof("machine", "measure", "--threads", threads)
                self.assertError(r, 2, f"--threads {threads}: must be 1..")
        self.assertFalse(os.path.exists(self.db), "a usage error must not create the database")

    def test_threads_beyond_the_cpus_this_process_may_use(self):
        # "More than the CPUs" counts the CPUs rprof may run on (its affinity), as
        # MeasureMachine does: pinned to one CPU, --threads 2 is the same usage error as
        # --threads 999, exit 2 before the database is touched.
        if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs two CPUs to restrict rprof to one")
        first = min(os.sched_getaffinity(0))
        proc = subprocess.run(self.command(["machine", "measure", "--threads", "2"]),
                              env=self.env, capture_output=True, text=True, timeout=120,
                              preexec_fn=lambda: os.sched_setaffinity(0, {first}))
        r = Result(["machine", "measure", "--threads", "2"], proc.returncode, proc.stdout,
                   proc.stderr)
        self.assertError(r, 2, "--threads 2", "1..1")
        self.assertFalse(os.path.exists(self.db), "a usage error must not create the database")

    def test_bad_subcommands_and_flags(self):
        bare = self.rprof("machine")  # the usage, then the error, both on stderr
        self.assertExit(bare, 2, "say measure, show or list")
        self.assertIn("rprof machine measure [--quick|--full] [--threads N]", bare.stderr)
        self.assertEqual(bare.stdout, "")
        self.assertError(self.rprof("machine", "mesure"), 2, "no subcommand 'mesure'")
        self.assertError(self.rprof("machine", "measure", "--quick", "--full"), 2,
                         "--quick or --full, not both")
        self.assertError(self.rprof("machine", "show", "--format", "xml"), 2)
        self.assertFalse(os.path.exists(self.db))

    def test_show_on_an_empty_database_says_how_to_measure(self):
        rprof_harness.make_database(self.db)
        r = self.rprof("machine", "show")
        self.assertError(r, 3, "no machine profile for this machine", "rprof machine measure")

    def test_list_on_an_empty_database(self):
        rprof_harness.make_database(self.db)
        self.assertEqual(json.loads(self.rprof_ok("machine", "list", "--format", "json").stdout),
                         [])
        csv_out = self.rprof_ok("machine", "list", "--format", "csv").stdout
        self.assertEqual(len(csv_out.splitlines()), 1, csv_out)

    def test_run_without_profile_says_how_to_make_one(self):
        out = self.run_json("triad", "-p", "n=1000", "--repeat", "2", "--counters", "model")
        self.assertFalse(out["placement"]["placed"])
        self.assertIn("no machine profile", out["placement"]["reason"])
        self.assertIn("rprof machine measure", out["placement"]["reason"])
        self.assertEqual(self.scalar("select count(*) from placements"), 0)
        self.assertEqual(self.query("select binding, percent_of_roof from run_summary"),
                         [(None, None)])

    def test_sigint_stores_no_profile(self):
        result, waited = self.measure_and_interrupt(after_s=2.0)
        self.assertInterrupted(result, waited)
        self.assertEqual(self.scalar("select count(*) from machine_profiles"), 0)
        self.assertEqual(self.scalar("select count(*) from ceilings"), 0)
        self.assertEqual(self.scalar("select count(*) from latency_points"), 0)


# (kind, name, level, isa, precision, pattern, threads, value): a profile of fixtures' whose
# fp64 mul+add (60) is above its FMA (50) — noise a real machine cannot show.
NOISY_CEILINGS = [
    ("compute", "fp64_avx2_fma", "", "avx2", "fp64", "fma", 1, 50),
    ("compute", "fp64_avx2_mul_add", "", "avx2", "fp64", "mul_add", 1, 60),
    ("compute", "fp32_avx2_fma", "", "avx2", "fp32", "fma", 1, 100),
    ("bandwidth", "l1_load", "l1", "avx2", "fp64", "load", 1, 200),
    ("bandwidth", "dram_triad", "dram", "avx2", "fp64", "triad", 1, 20),
]
NOISY_REASON = "measured under load: other processes used 1.50 CPUs on average while it measured"


class NoisyProfile(RprofTestCase):
    """A profile marked noisy (fixtures.insert_profile, as `machine measure` marks one measured
    under load): runs placed on it carry a `noisy_profile` trust note, doctor calls the profile
    limited, and its mul+add above FMA is never the compute roof."""

    def setUp(self):
        super().setUp()
        # A run first, for the machine row of this machine.
        self.rprof_ok("run", "triad", "-p", "n=1000", "--repeat", "2", "--counters", "model",
                      "-q")
        self.runs_only = self.path("runs-only.db")
        copy_database(self.db, self.runs_only)
        self.profile_id = insert_profile(self.db, NOISY_CEILINGS, threads=1,
                                         noisy_reasons=NOISY_REASON)

    def mark(self, noisy, reasons=NOISY_REASON):
        """The same profile, marked noisy (for `reasons`, None: with none given) or not, in
        place of the one setUp stored."""
        copy_database(self.runs_only, self.db)
        self.profile_id = insert_profile(self.db, NOISY_CEILINGS, threads=1, noisy=noisy,
                                         noisy_reasons=reasons if noisy else None)

    def doctor_profile_check(self):
        r = self.rprof("doctor", "--format", "json")
        doc = json.loads(r.stdout)
        return {c["name"]: c for c in doc["checks"]}["machine_profile"]

    def test_run_on_a_noisy_profile_carries_the_note(self):
        out = self.run_json("triad", "-p", "n=1000", "--repeat", "2", "--counters", "model")
        self.assertEqual(out["placement"]["profile_id"], self.profile_id)
        notes = {t["kind"]: t["detail"] for t in out["trust"]}
        self.assertIn("noisy_profile", notes, out["trust"])
        self.assertIn(f"machine profile {self.profile_id}, which is noisy", notes["noisy_profile"])
        self.assertIn(NOISY_REASON, notes["noisy_profile"])
        self.assertIn("rprof machine measure on a quiet machine", notes["noisy_profile"])
        # Stored with the run, and shown again by `show`.
        self.assertEqual(self.scalar("select count(*) from run_trust where run_id = ? and"
                                     " kind = 'noisy_profile'", (out["run_id"],)), 1)
        shown = json.loads(self.rprof_ok("show", str(out["run_id"]), "--format", "json").stdout)
        self.assertIn("noisy_profile", [t["kind"] for t in shown["trust"]])

    def test_mul_add_above_fma_is_not_the_roof(self):
        out = self.run_json("triad", "-p", "n=1000", "--repeat", "2", "--counters", "model")
        self.assertTrue(out["placement"]["placed"], out["placement"])
        self.assertEqual(out["placement"]["compute_ceiling"], "fp64_avx2_fma")
        self.assertEqual(out["placement"]["peak_gflops"], 50)

    def test_doctor_says_the_profile_is_noisy(self):
        check = self.doctor_profile_check()
        self.assertEqual(check["status"], "limited", check)
        self.assertIn(f"profile {self.profile_id}", check["detail"])
        self.assertIn("is noisy: " + NOISY_REASON, check["detail"])
        self.assertIn("rprof machine measure", check["remedy"])
        self.assertIn("quiet machine", check["remedy"])

    def test_show_says_the_profile_is_noisy(self):
        shown = self.rprof_ok("machine", "show")
        self.assertIn("noisy: runs placed on it carry a noisy_profile note", shown.stdout)
        self.assertIn("  - " + NOISY_REASON, shown.stdout)
        p = json.loads(self.rprof_ok("machine", "show", "--format", "json").stdout)
        self.assertTrue(p["noisy"])
        self.assertEqual(p["noisy_reasons"], [NOISY_REASON])

    def test_a_quiet_profile_gives_no_note(self):
        self.mark(False)
        out = self.run_json("triad", "-p", "n=1000", "--repeat", "2", "--counters", "model")
        self.assertNotIn("noisy_profile", [t["kind"] for t in out["trust"]])
        self.assertEqual(self.doctor_profile_check()["status"], "ok")
        p = json.loads(self.rprof_ok("machine", "show", "--format", "json").stdout)
        self.assertFalse(p["noisy"])
        self.assertEqual(p["noisy_reasons"], [])

    def test_marked_noisy_without_reason(self):
        self.mark(True, reasons=None)
        out = self.run_json("triad", "-p", "n=1000", "--repeat", "2", "--counters", "model")
        notes = {t["kind"]: t["detail"] for t in out["trust"]}
        self.assertIn("marked noisy in the database", notes.get("noisy_profile", ""), notes)

    def test_measure_wait_must_not_be_negative(self):
        self.assertError(self.rprof("machine", "measure", "--wait", "-1"), 2, "--wait")


if __name__ == "__main__":
    rprof_harness.main()
