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


if __name__ == "__main__":
    main()
