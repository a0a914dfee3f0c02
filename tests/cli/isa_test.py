"""run --isa (issue 36): one ISA for the timed runs and the sim replay. --isa avx2 sets the
switches OpenBLAS, MKL, glibc, PyTorch and oneDNN read (NumPy's too on a CPU with AVX-512) for
every execution of the program, keeps a value the user set, and says so in the run's note and
its tag isa=avx2. The sim tests skip where valgrind is missing."""

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rprof_harness import SANITIZED, SANITIZED_SKIP, RprofTestCase, main  # noqa: E402

TARGETS_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli_targets")
HWCAPS = "glibc.cpu.hwcaps=-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,-AVX512VL"
# What a program sees: one line per execution.
PRINT_SWITCHES = ('echo "$OPENBLAS_CORETYPE|$MKL_ENABLE_INSTRUCTIONS|$GLIBC_TUNABLES|'
                  '$ATEN_CPU_CAPABILITY|$ONEDNN_MAX_CPU_ISA" >> "$0"')


def cpu_has_avx512():
    with open("/proc/cpuinfo") as f:
        return any(line.startswith("flags") and " avx512f" in line for line in f)


class Isa(RprofTestCase):
    def setUp(self):
        super().setUp()
        if shutil.which("valgrind") is None:
            self.skipTest("valgrind not found (Debian: apt-get install valgrind)")
        if SANITIZED:
            self.skipTest(SANITIZED_SKIP)

    def run_printing(self, *options, env=None):
        """Runs /bin/sh printing the switches, twice natively and once under valgrind; the
        stored run and the lines each execution printed."""
        lines = self.path("seen.txt")
        if os.path.exists(lines):
            os.remove(lines)
        report = self.path("run.json")
        r = self.rprof("run", "--counters", "sim", "--repeat", "2", *options, "--format", "json",
                       "-o", report, "/bin/sh", "-c", PRINT_SWITCHES, lines, env=env)
        self.assertExit(r, 0, "a second time, under valgrind")
        with open(report) as f:
            out = json.load(f)
        with open(lines) as f:
            seen = f.read().splitlines()
        self.assertEqual(len(seen), 3, seen)  # two timed executions, one replay
        return out, seen

    def test_avx2_reaches_the_timed_runs_and_the_replay(self):
        out, seen = self.run_printing("--isa", "avx2")
        self.assertEqual(seen, [f"Haswell|AVX2|{HWCAPS}|avx2|AVX2"] * 3)
        self.assertIn(f"--isa avx2: OPENBLAS_CORETYPE=Haswell, MKL_ENABLE_INSTRUCTIONS=AVX2, "
                      f"GLIBC_TUNABLES={HWCAPS}", out["note"])
        self.assertIn("for the timed runs and the replay", out["note"])
        self.assertEqual(out["tags"], {"isa": "avx2"})
        self.assertEqual(self.query("select key, value from tags"), [("isa", "avx2")])
        # NumPy's names only where the CPU has AVX-512 (NumPy warns about names it lacks).
        self.assertEqual("NPY_DISABLE_CPU_FEATURES=" in out["note"], cpu_has_avx512())

    def test_a_switch_the_user_set_is_kept(self):
        env = dict(self.env, OPENBLAS_CORETYPE="Zen", GLIBC_TUNABLES="glibc.malloc.arena_max=2")
        out, seen = self.run_printing("--isa", "avx2", "--tag", "isa=mine", env=env)
        self.assertEqual(seen, [f"Zen|AVX2|glibc.malloc.arena_max=2:{HWCAPS}|avx2|AVX2"] * 3)
        self.assertIn("kept as the user set it: OPENBLAS_CORETYPE=Zen", out["note"])
        self.assertIn(f"GLIBC_TUNABLES=glibc.malloc.arena_max=2:{HWCAPS}", out["note"])
        self.assertEqual(out["tags"], {"isa": "mine"})
        self.assertIn("tag isa=mine kept as --tag gave it", out["note"])

    def test_native_sets_nothing_and_the_default_follows_the_cpu(self):
        out, seen = self.run_printing("--isa", "native")
        self.assertEqual(seen, ["||||"] * 3)
        self.assertNotIn("--isa", out["note"])
        self.assertEqual(out["tags"], {})
        # No --isa: avx2 with sim on a CPU with AVX-512, said; elsewhere nothing.
        out, seen = self.run_printing()
        if cpu_has_avx512():
            self.assertEqual(seen, [f"Haswell|AVX2|{HWCAPS}|avx2|AVX2"] * 3)
            self.assertIn("--isa avx2 (the default with sim on an AVX-512 CPU", out["note"])
            self.assertEqual(out["tags"], {"isa": "avx2"})
        else:
            self.assertEqual(seen, ["||||"] * 3)
            self.assertNotIn("--isa", out["note"])

    def test_wrong_values_are_usage_errors(self):
        r = self.rprof("run", "--isa", "bogus", "/bin/true")
        self.assertError(r, 2, "--isa bogus: use avx2 or native")
        r = self.rprof("run", "--isa", "avx2", "triad")
        self.assertError(r, 2, "--isa is for programs: triad is a kernel")

    def test_numpy_runs_openblas_haswell_kernel_in_both_runs(self):
        python = "/usr/bin/python3"
        probe = subprocess.run([python, "-c", "import numpy"], capture_output=True, text=True)
        if probe.returncode != 0:
            self.skipTest(f"{python} has no numpy (Debian: python3-numpy)")
        script = os.path.join(TARGETS_SOURCE, "np_mm.py")
        env = dict(self.env, OPENBLAS_NUM_THREADS="1")
        # Timed and sampled: large enough for the kernel to be among the hot functions.
        r = self.rprof("run", "--isa", "avx2", "--format", "json", "-o", self.path("native.json"),
                       python, script, "1024", "4", env=env)
        self.assertExit(r, 0)
        with open(self.path("native.json")) as f:
            native = json.load(f)["functions"]
        self.assertIn("sgemm_kernel_HASWELL", native, list(native))
        # Replayed: the same kernel counted by sim, none the replay missed.
        r = self.rprof("run", "--isa", "avx2", "--counters", "sim", "--format", "json", "-o",
                       self.path("sim.json"), python, script, "128", "3", env=env, timeout=300)
        self.assertExit(r, 0)
        with open(self.path("sim.json")) as f:
            out = json.load(f)
        self.assertIn("sim", out["functions"]["sgemm_kernel_HASWELL"]["flops_sp"])
        self.assertNotIn("replay_missing_share", out["metrics"])


if __name__ == "__main__":
    main()
