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

FailedRunsTest: every lab, recipe and the demo exit with rprof's status when a kernel or program
it shows failed, after showing what it could, and say last how many failed and rprof's first
error (a lab had exited 0 with every kernel failed, the demo had stopped at its first failure).
The failures are forced by a wrapper first in RPROF (WRAPPER), nothing in rprof changed; the
runs that do not fail count with the model alone, to keep each case to seconds.
"""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from fixtures import insert_profile  # noqa: E402
from rprof_harness import RprofTestCase  # noqa: E402

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
LAB00 = os.path.join(SCRIPTS, "labs", "lab00")

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
        # Issue 37: from another directory, with rprof named relative to it, as a user in the
        # build folder would (`RPROF=./rprof`); the lab runs its programs from a folder of its
        # own, where a relative rprof was not found.
        rprof_dir, rprof_name = os.path.split(os.path.abspath(rprof_harness.RPROF))
        env = dict(self.env, RPROF="./" + rprof_name, RPROF_DB=self.db)
        lab = subprocess.run([LAB00, "--python", "48"], env=env, cwd=rprof_dir,
                             capture_output=True, text=True, timeout=600)
        self.assertEqual(lab.returncode, 0, lab.stderr)
        rows = {line.split()[0]: line for line in lab.stdout.splitlines()
                if line.split() and line.split()[0].endswith(".py")}
        self.assertEqual(sorted(rows), ["naive.py", "numpy_matmul.py"], lab.stdout)
        # Same FLOPs (2n^3), counted (BLAS's own a little more: its edge handling); the loop's
        # instructions per FLOP name the interpreter.
        # program, median s, range (runs): "low..high (N)", slower, FLOPs, instr/FLOP, bytes.
        self.assertEqual(float(rows["naive.py"].split()[5]), 2 * 48 ** 3, rows["naive.py"])
        self.assertAlmostEqual(float(rows["numpy_matmul.py"].split()[5]) / (2 * 48 ** 3), 1,
                               delta=0.05, msg=rows["numpy_matmul.py"])
        for line in rows.values():
            self.assertEqual(line.split()[7], "sim", line)
            # The median of 5 runs (the counted one and 4 timed), inside their range.
            median, (low, high), count = (float(line.split()[1]),
                                          map(float, line.split()[2].split("..")),
                                          line.split()[3])
            self.assertEqual(count, "(5)", line)
            self.assertLessEqual(low, median, line)
            self.assertLessEqual(median, high, line)
        self.assertIn("overhead-bound", rows["naive.py"])
        self.assertGreater(float(rows["naive.py"].split()[6]), 50, rows["naive.py"])
        self.assertNotIn("overhead-bound", rows["numpy_matmul.py"])


# rprof (RPROF_REAL), except that `run` and `mpirun` of a target named in RPROF_FAIL (words
# compared with each argument after the command; 'all': every target) fail as rprof does where
# the counters cannot count: exit 3, its error on stderr. The other runs count with
# RPROF_COUNTERS where it is set.
WRAPPER = r"""#!/usr/bin/env bash
set -f
args=("$@")
for i in "${!args[@]}"; do
  case ${args[i]} in
    run|mpirun)
      for a in "${args[@]:i+1}"; do
        if [ "${RPROF_FAIL:-}" = all ] || [[ -n $a && " ${RPROF_FAIL:-} " == *" $a "* ]]; then
          echo "rprof: error: counters: forced by the test (no PMU)" >&2
          exit 3
        fi
      done
      if [ "${args[i]}" = run ] && [ -n "${RPROF_COUNTERS:-}" ]; then
        args=("${args[@]:0:i+1}" --counters "$RPROF_COUNTERS" "${args[@]:i+1}")
      fi
      break;;
  esac
done
exec "$RPROF_REAL" "${args[@]}"
"""
FORCED = "rprof: error: counters: forced by the test (no PMU)"


class FailedRunsTest(RprofTestCase):
    def setUp(self):
        super().setUp()
        # A profile of this machine, so that no script measures one.
        self.rprof_ok("run", "copy", "-p", "n=1000", "--counters", "model", "-q")
        insert_profile(self.db, ceilings=CEILINGS, threads=1)
        bin_dir = self.path("bin")
        os.mkdir(bin_dir)
        self.wrapper = os.path.join(bin_dir, "rprof")
        with open(self.wrapper, "w") as f:
            f.write(WRAPPER)
        os.chmod(self.wrapper, 0o755)
        # lab00-python finds the rprof module beside rprof.
        real_dir = os.path.dirname(os.path.abspath(rprof_harness.RPROF))
        if os.path.isdir(os.path.join(real_dir, "python")):
            os.symlink(os.path.join(real_dir, "python"), os.path.join(bin_dir, "python"))

    def script(self, path, *args, fail="all", counters="model"):
        """SCRIPTS/PATH ARGS with the wrapper as RPROF; its exit status and its lines, stdout and
        stderr together as a terminal shows them."""
        env = dict(self.env, RPROF=self.wrapper, RPROF_REAL=os.path.abspath(rprof_harness.RPROF),
                   RPROF_DB=self.db, RPROF_FAIL=fail, RPROF_COUNTERS=counters)
        done = subprocess.run([os.path.join(SCRIPTS, path), *args], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        return done.returncode, done.stdout.rstrip("\n").splitlines()

    def assertFailed(self, result, status, last):
        code, lines = result
        self.assertEqual(code, status, "\n".join(lines))
        self.assertTrue(lines, "no output")
        self.assertRegex(lines[-1], "^" + last + "$", "\n".join(lines))

    def assertLine(self, lines, pattern):
        """Some line of `lines` is all of `pattern` (a regular expression)."""
        self.assertTrue(any(re.fullmatch(pattern, line) for line in lines),
                        f"no line {pattern!r} in:\n" + "\n".join(lines))

    def built(self, kernel):
        return kernel in self.kernel_names()

    def test_lab00(self):
        kernels = 3 if self.built("matmul-blas-fp32") else 2
        self.assertFailed(self.script("labs/lab00", "64"), 3,
                          f"lab00: {kernels} of {kernels} kernels failed: " + re.escape(FORCED))
        code, lines = result = self.script("labs/lab00", "64", fail="matmul-naive-fp32")
        self.assertFailed(result, 3,
                          f"lab00: 1 of {kernels} kernels failed: " + re.escape(FORCED))
        self.assertLine(lines, r"lab00:   matmul-naive-fp32: failed \(exit 3, \d+ s\)")
        rows = [line.split()[0] for line in lines if line.startswith("matmul-")]
        self.assertEqual(sorted(rows), ["matmul-blas-fp32", "matmul-ikj-fp32"][3 - kernels:])

    def test_lab00_python(self):
        if subprocess.run(["/usr/bin/python3", "-c", "import numpy"]).returncode != 0:
            self.skipTest("Debian's python3-numpy is not installed (scripts/bootstrap installs it)")
        self.assertFailed(self.script("labs/lab00-python", "16"), 3,
                          "lab00-python: 2 of 2 programs failed: " + re.escape(FORCED))

    def test_lab02(self):
        plot = self.path("lab02.svg")
        self.assertFailed(self.script("labs/lab02", plot), 3,
                          "lab02: 2 of 2 kernels failed: " + re.escape(FORCED))
        self.assertFalse(os.path.exists(plot))
        code, lines = result = self.script("labs/lab02", plot, fail="triad")
        self.assertFailed(result, 3, "lab02: 1 of 2 kernels failed: " + re.escape(FORCED))
        self.assertIn("lab02: triad: failed (exit 3)", lines)
        # The other kernel is shown and drawn.
        self.assertTrue(any(line.startswith("matmul-") for line in lines), "\n".join(lines))
        self.assertTrue(os.path.exists(plot))

    def test_lab03(self):
        self.assertFailed(self.script("labs/lab03", "triad", "dot"), 3,
                          "lab03: 2 of 2 kernels failed: " + re.escape(FORCED))
        code, lines = result = self.script("labs/lab03", "triad", "dot", "scale", fail="dot")
        self.assertFailed(result, 3, "lab03: 1 of 3 kernels failed: " + re.escape(FORCED))
        rows = {line.split()[0]: line for line in lines
                if line.split() and line.split()[0] in ("triad", "dot", "scale")}
        self.assertEqual(rows["dot"], f"{'dot':20} failed: {FORCED}")
        self.assertIn("not measured (model bytes only)", rows["triad"])
        self.assertIn("not measured (model bytes only)", rows["scale"])

    def test_demo(self):
        out = self.path("demo-output")
        code, lines = result = self.script("demo", out)
        self.assertFailed(result, 3, r"demo: (\d+) of \1 kernels failed: " + re.escape(FORCED))
        self.assertLine(lines, r"  run failed \(exit 3\): copy -p n=4000000 \(\d+ s\)")
        self.assertEqual(os.listdir(out), [])
        # Every kernel but triad and dot failing: those two are shown, plotted and reported.
        others = ("copy matmul-naive matmul-ikj matmul-tiled matmul-simd-fp32 matmul-blas-fp32"
                  " gemv gemv-int8 softmax attention-tiled")
        code, lines = result = self.script("demo", out, fail=others)
        self.assertFailed(result, 3, r"demo: (\d+) of (\d+) kernels failed: " + re.escape(FORCED))
        failed, total = map(int, re.match(r"demo: (\d+) of (\d+)", lines[-1]).groups())
        self.assertEqual(total - failed, 2, lines[-1])
        self.assertLine(lines, r"  run \d+: triad -p n=4000000 \(\d+ s\)")
        self.assertEqual(sorted(os.listdir(out)), ["report.html", "roofline.svg"])

    def test_sweep_matmul(self):
        out = self.path("sweep")
        self.assertFailed(self.script("recipes/sweep-matmul", out), 3,
                          "sweep-matmul: 10 of 10 runs failed: " + re.escape(FORCED))
        code, lines = result = self.script("recipes/sweep-matmul", out, fail="matmul-naive")
        self.assertFailed(result, 3, "sweep-matmul: 5 of 10 runs failed: " + re.escape(FORCED))
        self.assertLine(lines, r"n=64 matmul-naive: failed \(exit 3, \d+ s\)")
        with open(os.path.join(out, "sweep.csv")) as f:
            targets = [line.split(",")[0] for line in f.read().splitlines()[1:]]
        self.assertEqual(targets, ["matmul-ikj"] * 5)
        self.assertTrue(os.path.exists(os.path.join(out, "sweep.svg")))

    def test_before_after(self):
        before, after = "matmul-naive -p n=64", "matmul-ikj -p n=64"
        code, lines = result = self.script("recipes/before-after", before, after, fail="matmul-ikj")
        self.assertFailed(result, 3, "before-after: 1 of 2 runs failed: " + re.escape(FORCED))
        self.assertIn("before-after: the after side failed (exit 3): matmul-ikj -p n=64", lines)
        self.assertLine(lines, r"before-after: the before side is run \d+")
        # A program that fails is rprof's exit 1 (the target failed), with its error.
        self.assertFailed(self.script("recipes/before-after", before, "/bin/false", fail=""), 1,
                          r"before-after: 1 of 2 runs failed: rprof: error: run \d+ failed: "
                          r"exited with status 1 \(stored\)")
        # Both sides measured: the comparison, as before.
        code, lines = self.script("recipes/before-after", before, before, "1000", fail="")
        self.assertEqual(code, 0, "\n".join(lines))

    def test_mpi_scaling(self):
        fixture = os.path.join(os.path.dirname(os.path.abspath(rprof_harness.RPROF)), "..",
                               "tests", "cli_targets", "mpi_fixture")
        fixture = os.environ.get("RPROF_MPI_FIXTURE", fixture)
        if not shutil.which("mpirun") or not os.access(fixture, os.X_OK):
            self.skipTest("no mpirun or no MPI fixture (built where meson finds MPI)")
        if rprof_harness.SANITIZED:
            self.skipTest("the mpi suite runs the fixture under the sanitizer build")
        self.env["RPROF_MPI_FIXTURE"] = fixture
        # "2": the 2-rank job (`mpirun -n 2`) fails, the 1- and 4-rank jobs are shown.
        code, lines = result = self.script("recipes/mpi-scaling", "100000", fail="2")
        self.assertFailed(result, 3, "mpi-scaling: 1 of 3 jobs failed: " + re.escape(FORCED))
        self.assertIn("mpi-scaling: the 2-rank job failed (exit 3)", lines)
        self.assertEqual([line.split()[0] for line in lines if "ranks (rprof:" in line],
                         ["1", "4"])


if __name__ == "__main__":
    rprof_harness.main()
