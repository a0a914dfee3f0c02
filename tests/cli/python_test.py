"""Python users: a script or an interpreter shim run as the kernel runs it and stored under the
script, and `import rprof` marking regions over the marker library (the module of the build tree,
on PYTHONPATH; Debian's /usr/bin/python3, with python3-numpy for the NumPy cases)."""

import json
import os
import stat
import subprocess
import sys
import textwrap
import unittest

from fixtures import CEILINGS, insert_profile
from rprof_harness import RprofTestCase, SANITIZED, main

MODULE_DIR = os.environ.get("RPROF_PYTHON_MODULE_DIR", "")
SYSTEM_PYTHON = "/usr/bin/python3"


def has_numpy():
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import numpy"], capture_output=True)
    return probe.returncode == 0


class PythonCase(RprofTestCase):
    def setUp(self):
        super().setUp()
        if not os.access(SYSTEM_PYTHON, os.X_OK):
            self.skipTest(SYSTEM_PYTHON + " not found (Debian's python3)")
        self.env["PYTHONPATH"] = MODULE_DIR
        # rprof runs programs in the caller's folder: the scripts are named relative to it.
        self.cwd = self.tmp

    def write(self, name, text, executable=False):
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        if executable:
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def rprof_here(self, *args, timeout=300):
        """rprof ARGS run in this test's folder."""
        proc = subprocess.run(self.command(args), env=self.env, capture_output=True, text=True,
                              timeout=timeout, cwd=self.tmp)
        return proc

    def last_run(self):
        last = str(self.scalar("select max(id) from runs"))
        out = subprocess.run(self.command(["show", last, "-f", "json"]), env=self.env,
                             capture_output=True, text=True, cwd=self.tmp)
        self.assertEqual(out.returncode, 0, out)
        return json.loads(out.stdout)


class Scripts(PythonCase):
    def test_a_shim_runs_the_script_with_its_arguments_stored_under_the_script(self):
        # pyenv's and conda's python3 are shell scripts like this one.
        self.write("shim/python3", '#!/bin/sh\nexec %s "$@"\n' % SYSTEM_PYTHON, executable=True)
        self.write("script.py", "import sys\nprint('args', *sys.argv[1:])\n")
        run = self.rprof_here("--counters", "pmu", "./shim/python3", "script.py", "a", "b")
        self.assertEqual(run.returncode, 0, run)
        self.assertIn("args a b", run.stdout)
        history = subprocess.run(self.command(["history", "--kernel", "script.py", "-f", "json"]),
                                 env=self.env, capture_output=True, text=True, cwd=self.tmp)
        self.assertEqual(history.returncode, 0, history)
        runs = json.loads(history.stdout)
        self.assertEqual(len(runs), 1, runs)
        shown = self.last_run()
        self.assertEqual(shown["target"], os.path.realpath(self.path("script.py")))
        self.assertEqual(shown["command"], ["./shim/python3", "script.py", "a", "b"])

    def test_sim_follows_the_shims_exec_into_the_interpreter(self):
        if SANITIZED:
            self.skipTest("the sanitizer build's marker library cannot load into python3")
        self.write("shim/python3", '#!/bin/sh\nexec %s "$@"\n' % SYSTEM_PYTHON, executable=True)
        self.write("work.py", """\
            import rprof
            with rprof.region("work"):
                s = 0.0
                for i in range(1000):
                    s += i * 0.5
            """)
        run = self.rprof_here("--counters", "sim", "./shim/python3", "work.py")
        self.assertEqual(run.returncode, 0, run)
        shown = self.last_run()
        self.assertEqual(shown["target"], os.path.realpath(self.path("work.py")))
        # The interpreter's work, not the shell's: at least the loop's 1000 multiplies and adds.
        self.assertGreaterEqual(shown["regions"]["work"]["flops"]["sim"]["value"], 2000)

    def test_a_shell_script_runs_as_the_kernel_runs_it(self):
        self.write("run.sh", "#!/bin/sh\necho ran \"$1\"\n", executable=True)
        run = self.rprof_here("--counters", "pmu", "./run.sh", "x")
        self.assertEqual(run.returncode, 0, run)
        self.assertIn("ran x", run.stdout)
        self.assertEqual(self.last_run()["target"], os.path.realpath(self.path("run.sh")))

    def test_a_file_without_a_shebang_line_says_what_to_do(self):
        self.write("plain", "echo hi\n", executable=True)
        run = self.rprof_here("./plain")
        self.assertEqual(run.returncode, 2, run)
        self.assertIn("nor a script with a #! line", run.stderr)
        self.assertIn("rprof /bin/sh ./plain", run.stderr)

    def test_an_interpreters_module_or_inline_code_stays_the_interpreters_run(self):
        run = self.rprof_here("--counters", "pmu", SYSTEM_PYTHON, "-c", "print(1)")
        self.assertEqual(run.returncode, 0, run)
        self.assertEqual(self.last_run()["target"], os.path.realpath(SYSTEM_PYTHON))


class Module(PythonCase):
    REGIONS = """\
        import rprof
        print("active", rprof.active())
        n = 1000
        with rprof.region("loop", flops=2 * n, bytes=24 * n, precision="fp64"):
            s = 0.0
            for i in range(n):
                s += i * 0.5

        @rprof.region("twice")
        def twice(x):
            return 2 * x

        for i in range(3):
            twice(i)
        """

    def test_outside_rprof_nothing_is_loaded(self):
        self.write("regions.py", self.REGIONS + "print('loaded', rprof._library)\n")
        out = subprocess.run([SYSTEM_PYTHON, "regions.py"], env=self.env, capture_output=True,
                             text=True, cwd=self.tmp)
        self.assertEqual(out.returncode, 0, out)
        self.assertIn("active False", out.stdout)
        self.assertIn("loaded None", out.stdout)

    def test_bad_arguments_are_errors_in_python(self):
        self.write("bad.py", """\
            import rprof
            for bad in (lambda: rprof.region(""), lambda: rprof.declare("r", precision="fp16")):
                try:
                    bad()
                    print("accepted")
                except ValueError as e:
                    print("refused", e)
            """)
        out = subprocess.run([SYSTEM_PYTHON, "bad.py"], env=self.env, capture_output=True,
                             text=True, cwd=self.tmp)
        self.assertEqual(out.stdout.count("refused"), 2, out)

    def test_regions_context_manager_and_decorator_are_measured(self):
        if SANITIZED:
            self.skipTest("the sanitizer build's marker library cannot load into python3")
        self.write("regions.py", self.REGIONS)
        run = self.rprof_here("--counters", "pmu", SYSTEM_PYTHON, "regions.py")
        self.assertEqual(run.returncode, 0, run)
        self.assertIn("active True", run.stdout)
        regions = self.last_run()["regions"]
        self.assertEqual(regions["loop"]["calls"]["clock"]["value"], 1)
        self.assertEqual(regions["twice"]["calls"]["clock"]["value"], 3)
        self.assertEqual(regions["loop"]["flops"]["model"]["value"], 2000)
        self.assertEqual(regions["loop"]["bytes_dram"]["model"]["value"], 24000)

    def test_a_region_without_work_is_told_pythons_way_to_declare_it(self):
        # Issue 37: Python users were pointed to rprof_region_declare, the C API.
        if SANITIZED:
            self.skipTest("the sanitizer build's marker library cannot load into python3")
        self.rprof_ok("run", "triad", "-p", "n=1000", "-r", "1", "--counters", "model", "-q")
        insert_profile(self.db, CEILINGS)
        self.write("regions.py", self.REGIONS)
        run = self.rprof_here("--counters", "pmu", SYSTEM_PYTHON, "regions.py")
        self.assertEqual(run.returncode, 0, run)
        reason = self.last_run()["regions"]["twice"]["placement"]["reason"]
        self.assertIn('rprof.region("twice", flops=...)', reason)
        self.assertNotIn("rprof_region_declare", reason)



class UnderSim(PythonCase):
    """The curriculum's lab 00 in Python, under sim: counts from every thread, and the verdict
    of an interpreter's loop names its overhead."""

    def setUp(self):
        super().setUp()
        if SANITIZED:
            self.skipTest("the sanitizer build's marker library cannot load into python3")
        # A profile with 1- and 2-thread roofs of both precisions, so that placement is judged.
        self.rprof_ok("run", "triad", "-p", "n=1000", "-r", "1", "--counters", "model", "-q")
        insert_profile(self.db, CEILINGS + [
            ("compute", "fp32_avx2_fma", "", "avx2", "fp32", "fma", 2, 222),
            ("bandwidth", "l2_load", "l2", "avx2", "fp64", "load", 2, 300),
            ("bandwidth", "l3_load", "l3", "avx2", "fp64", "load", 2, 160),
            ("bandwidth", "dram_load", "dram", "avx2", "fp64", "load", 2, 26)])

    def test_pure_python_matmul_is_bound_by_instruction_overhead(self):
        self.write("naive.py", """\
            import sys
            import rprof
            n = int(sys.argv[1])
            a = [[1.0 + i + j for j in range(n)] for i in range(n)]
            b = [[2.0 - i + j for j in range(n)] for i in range(n)]
            with rprof.region("matmul", flops=2 * n**3, precision="fp64"):
                c = [[sum(a[i][k] * b[k][j] for k in range(n)) for j in range(n)]
                     for i in range(n)]
            """)
        run = self.rprof_here("--counters", "sim", SYSTEM_PYTHON, "naive.py", "24")
        self.assertEqual(run.returncode, 0, run)
        region = self.last_run()["regions"]["matmul"]
        self.assertEqual(region["flops"]["sim"]["value"], 2 * 24 ** 3)
        placement = region["placement"]
        overhead = placement["overhead"]
        self.assertIsNotNone(overhead, placement)
        self.assertEqual(overhead["source"], "sim")
        self.assertGreater(overhead["instructions_per_flop"], 100, overhead)
        self.assertTrue(placement["verdict"].startswith("overhead-bound: "), placement["verdict"])
        self.assertIn("instructions per FLOP", placement["verdict"])

    def test_numpy_matmul_region_counts_every_blas_thread(self):
        if not has_numpy():
            self.skipTest("Debian's python3-numpy is not installed (scripts/bootstrap installs it)")
        self.write("np_mm.py", """\
            import numpy as np
            import rprof
            n = 256
            a = np.ones((n, n), dtype=np.float32)
            b = np.ones((n, n), dtype=np.float32)
            a @ b  # OpenBLAS starts its threads outside the region
            with rprof.region("matmul", flops=2 * n**3, precision="fp32"):
                c = a @ b
            """)
        # OpenBLAS's AVX2 kernels natively and under valgrind (which runs no AVX-512).
        self.env.update(OPENBLAS_NUM_THREADS="2", OPENBLAS_CORETYPE="Haswell")
        run = self.rprof_here("--counters", "sim", SYSTEM_PYTHON, "np_mm.py", timeout=600)
        self.assertEqual(run.returncode, 0, run)
        region = self.last_run()["regions"]["matmul"]
        flops = region["flops"]["sim"]["value"]
        self.assertAlmostEqual(flops / (2 * 256 ** 3), 1, delta=0.02, msg=region["flops"])
        self.assertAlmostEqual(region["flops_sp"]["sim"]["value"] / flops, 1, delta=0.01)
        placement = region["placement"]
        self.assertEqual(placement["precision"], "fp32", placement)
        if "rprofsim" in json.dumps(region["flops"]["sim"]) or region.get("threads", {}).get("sim"):
            self.assertEqual(region["threads"]["sim"]["value"], 2, region["threads"])
            self.assertEqual(placement["threads"], 2, placement)
        self.assertIsNone(placement["overhead"], placement)


if __name__ == "__main__":
    main()
