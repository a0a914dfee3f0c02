"""scripts/labs/lab00 end to end, on this build (RPROF) and a temporary database (RPROF_DB): every
kernel it shows is placed from measured bytes (pmu where the hardware counts, else sim), never
from the model's compulsory bytes alone, and naive matmul lands on a memory level (issue 24: the
curriculum's first lesson came out "151x compute (compulsory bytes)" when its replay did not fit
the default sim budget).

The machine profile is inserted with SQL so that the lab measures nothing but its kernels: its
compute roofs (every ISA and precision, 1 thread) sit far above what any memory level allows
naive matmul, whose every FMA loads two operands (at most 0.25 FLOP per L1 byte in fp32), so its
binding level is a memory level whatever caches the simulation models. n=128 keeps the three
replays to seconds.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from plot_test import insert_profile  # noqa: E402
from rprof_harness import RprofTestCase  # noqa: E402

LAB00 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "labs",
                     "lab00")

# (kind, name, level, isa, precision, pattern, threads, value): compute far above any
# bandwidth, so the memory levels decide.
CEILINGS = [("compute", f"{p}_{isa}_fma", "", isa, p, "fma", 1, 5000.0)
            for p in ("fp64", "fp32") for isa in ("scalar", "sse", "avx2", "avx512")] + [
    ("bandwidth", "l1_load", "l1", "avx2", "fp64", "load", 1, 400),
    ("bandwidth", "l2_triad", "l2", "avx2", "fp64", "triad", 1, 150),
    ("bandwidth", "l3_triad", "l3", "avx2", "fp64", "triad", 1, 80),
    ("bandwidth", "dram_triad", "dram", "avx2", "fp64", "triad", 1, 20),
]
MEMORY_LEVELS = ("l1 bandwidth", "l2 bandwidth", "l3 bandwidth", "dram bandwidth")


class Lab00Test(RprofTestCase):
    def test_every_kernel_is_placed_from_measured_bytes(self):
        if rprof_harness.SANITIZED:
            self.skipTest(rprof_harness.SANITIZED_SKIP)
        # The machine row comes from a first run; the profile is then this machine's.
        self.rprof_ok("run", "copy", "-p", "n=1000", "--counters", "model", "-q")
        insert_profile(self.db, ceilings=CEILINGS, threads=1)
        env = dict(self.env, RPROF=rprof_harness.RPROF, RPROF_DB=self.db)
        lab = subprocess.run([LAB00, "128"], env=env, capture_output=True, text=True,
                             timeout=600)
        self.assertEqual(lab.returncode, 0, lab.stderr)
        rows = {}
        for line in lab.stdout.splitlines():
            words = line.split()
            if words and words[0].startswith("matmul-"):
                rows[words[0]] = line
        self.assertIn("matmul-naive-fp32", rows, lab.stdout)
        naive = rows["matmul-naive-fp32"]
        self.assertTrue(any(level in naive for level in MEMORY_LEVELS), naive)
        self.assertNotIn("model bytes only", lab.stdout)
        # Where the bytes came from, last on each line: measured, by the hardware or the
        # simulation, for every kernel shown.
        for kernel, line in rows.items():
            self.assertIn(line.split()[-1], ("pmu", "sim"), line)
        # What the lab printed is what is stored: the naive run has sim (or pmu) bytes, and its
        # placement is not on compulsory bytes.
        self.assertEqual(self.query(
            "select p.bytes_compulsory_only from placements p join runs r on r.id = p.run_id"
            " where r.target = 'matmul-naive-fp32'"), [(0,)])


class Lab00PythonTest(RprofTestCase):
    def test_the_interpreter_is_named_numpy_placed_on_the_roofs(self):
        if rprof_harness.SANITIZED:
            self.skipTest("the sanitizer build's marker library cannot load into python3")
        if subprocess.run(["/usr/bin/python3", "-c", "import numpy"]).returncode != 0:
            self.skipTest("Debian's python3-numpy is not installed (scripts/bootstrap installs it)")
        self.rprof_ok("run", "copy", "-p", "n=1000", "--counters", "model", "-q")
        insert_profile(self.db, ceilings=CEILINGS, threads=1)
        env = dict(self.env, RPROF=rprof_harness.RPROF, RPROF_DB=self.db)
        lab = subprocess.run([LAB00, "--python", "48"], env=env, capture_output=True, text=True,
                             timeout=600)
        self.assertEqual(lab.returncode, 0, lab.stderr)
        rows = {line.split()[0]: line for line in lab.stdout.splitlines()
                if line.split() and line.split()[0].endswith(".py")}
        self.assertEqual(sorted(rows), ["naive.py", "numpy_matmul.py"], lab.stdout)
        # Same FLOPs (2n^3), counted (BLAS's own a little more: its edge handling); the loop's
        # instructions per FLOP name the interpreter.
        self.assertEqual(float(rows["naive.py"].split()[3]), 2 * 48 ** 3, rows["naive.py"])
        self.assertAlmostEqual(float(rows["numpy_matmul.py"].split()[3]) / (2 * 48 ** 3), 1,
                               delta=0.05, msg=rows["numpy_matmul.py"])
        for line in rows.values():
            self.assertEqual(line.split()[5], "sim", line)
        self.assertIn("overhead-bound", rows["naive.py"])
        self.assertGreater(float(rows["naive.py"].split()[4]), 50, rows["naive.py"])
        self.assertNotIn("overhead-bound", rows["numpy_matmul.py"])


if __name__ == "__main__":
    rprof_harness.main()
