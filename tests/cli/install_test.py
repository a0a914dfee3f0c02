"""rprof as scripts/bootstrap installs it (issue 15): `rprof` on PATH, the marker library found
by pkg-config, and the marker compile line of the README's tour and `rprof help regions`
(`cc ... $(pkg-config --cflags --libs rprof-marker)`) working from any directory, its program
running alone and under the installed rprof; its manual (issue 39): the man pages the build
writes from the command table, rendered by man, and the bash completion, found by bash.

Usage: install_test.py PATH/TO/rprof (the build's; the installed one is found on PATH).
Skips (77) where rprof is not installed: scripts/bootstrap installs it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import unittest

import rprof_harness

APP = r"""
#include <rprof/marker.h>
#include <stdio.h>
int main(void) {
  static double a[100000];
  rprof_region_begin("fill");
  for (int i = 0; i < 100000; ++i) a[i] = i * 0.5;
  rprof_region_end("fill");
  printf("%g\n", a[99999]);
  return 0;
}
"""


class Installed(rprof_harness.RprofTestCase):
    def setUp(self):
        super().setUp()
        self.installed = shutil.which("rprof")
        build_version = subprocess.run([rprof_harness.RPROF, "--version"], capture_output=True,
                                       text=True).stdout
        installed_version = subprocess.run([self.installed, "--version"], capture_output=True,
                                           text=True).stdout
        self.assertEqual(installed_version, build_version,
                         f"{self.installed} is another rprof than this build: run "
                         "scripts/bootstrap")

    def test_the_readme_marker_line_builds_and_runs_from_any_directory(self):
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "rprof-marker"],
                               capture_output=True, text=True)
        self.assertEqual(flags.returncode, 0, flags.stderr)
        source = self.path("app.c")
        with open(source, "w") as f:
            f.write(APP)
        # In a directory of its own, as a user's project is: nothing from the checkout.
        build = subprocess.run(f"cc -O2 app.c $(pkg-config --cflags --libs rprof-marker) -o app",
                               shell=True, cwd=self.tmp, capture_output=True, text=True)
        self.assertEqual(build.returncode, 0, build.stderr)
        alone = subprocess.run(["./app"], cwd=self.tmp, capture_output=True, text=True)
        self.assertEqual((alone.returncode, alone.stdout), (0, "49999.5\n"), alone.stderr)

        report = self.path("report.json")
        run = subprocess.run([self.installed, "--db", self.db, "run", "--counters", "model",
                              "--format", "json", "-o", report, "./app"], cwd=self.tmp,
                             env=self.env, capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(report) as f:
            out = json.load(f)
        self.assertEqual(out["status"], "ok")
        self.assertEqual(out["regions"]["fill"]["calls"]["clock"]["value"], 1)

    def test_the_installed_python_module_imports_from_any_directory(self):
        # Issue 37: meson installed it under lib/python3/dist-packages, which Debian's python3
        # does not search: `import rprof` failed after the documented install. Debian's own
        # interpreter, outside the checkout, without the build tree on PYTHONPATH.
        env = {k: v for k, v in self.env.items() if k != "PYTHONPATH"}
        found = subprocess.run(["/usr/bin/python3", "-c",
                                "import rprof, os; print(os.path.realpath(rprof.__file__))"],
                               cwd=self.tmp, env=env, capture_output=True, text=True)
        self.assertEqual(found.returncode, 0, found.stderr)
        checkout = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
        self.assertFalse(found.stdout.startswith(checkout), found.stdout)
        # Its regions reach the installed rprof, as a user's script's would.
        script = self.path("regions.py")
        with open(script, "w") as f:
            f.write("import rprof\n"
                    "with rprof.region('fill'):\n"
                    "    a = [i * 0.5 for i in range(100000)]\n")
        report = self.path("py.json")
        run = subprocess.run([self.installed, "--db", self.db, "run", "--counters", "model",
                              "--format", "json", "-o", report, "/usr/bin/python3", script],
                             cwd=self.tmp, env=env, capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(report) as f:
            out = json.load(f)
        self.assertEqual(out["regions"]["fill"]["calls"]["clock"]["value"], 1)

    def prefix(self):
        return os.path.dirname(os.path.dirname(os.path.realpath(self.installed)))

    def run_option_names(self):
        """The long options `rprof run --help` lists, from its options block."""
        text = subprocess.run([self.installed, "run", "--help"], env=self.env,
                              capture_output=True, text=True).stdout
        options = text[text.index("run options:"):]
        return set(re.findall(r"^  (?:-\w \[ )?--([a-z][a-z0-9-]*)", options, re.M))

    def test_the_man_pages_are_installed_and_show_the_options(self):
        mandir = os.path.join(self.prefix(), "share", "man")
        pages = ["man1/rprof.1", "man1/rprof-run.1", "man1/rprof-machine.1",
                 "man7/rprof-json.7", "man7/rprof-regions.7", "man7/rprof-internals.7"]
        for page in pages:
            self.assertTrue(os.path.isfile(os.path.join(mandir, page)),
                            f"{mandir}/{page} is not installed: run scripts/bootstrap")
        if not shutil.which("man"):
            self.skipTest("man is not installed (Debian package man-db)")
        env = dict(self.env, MANWIDTH="80", MANPAGER="cat", PAGER="cat", MANPATH=mandir)
        shown = {}
        for page in pages:
            r = subprocess.run(["man", "-l", os.path.join(mandir, page)], env=env,
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("\\f", r.stdout, page)  # no troff escape left unread
            shown[page] = r.stdout
        # `man rprof-run` shows every option `rprof run --help` does, and no other.
        in_man = set(re.findall(r"^ {7}(?:-\w, )?--([a-z][a-z0-9-]*)", shown["man1/rprof-run.1"],
                                re.M))
        self.assertEqual(in_man, self.run_option_names())
        by_name = subprocess.run(["man", "rprof-run"], env=env, capture_output=True, text=True)
        self.assertEqual((by_name.returncode, by_name.stdout), (0, shown["man1/rprof-run.1"]),
                         by_name.stderr)
        self.assertIn("rprof-json(7)", shown["man1/rprof.1"])

    def test_the_bash_completion_is_installed_and_completes(self):
        prefix = self.prefix()
        candidates = [os.path.join(prefix, "share", "bash-completion", "completions", "rprof")]
        found = subprocess.run(["pkg-config", f"--define-variable=prefix={prefix}",
                                "--variable=completionsdir", "bash-completion"],
                               capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.strip():
            candidates.insert(0, os.path.join(found.stdout.strip(), "rprof"))
        script = next((c for c in candidates if os.path.isfile(c)), None)
        self.assertIsNotNone(script, f"no completion in {candidates}: run scripts/bootstrap")
        r = subprocess.run(["bash", "-c", f"source '{script}' && complete -p rprof && "
                            "COMP_WORDS=(rprof machine me); COMP_CWORD=2; _rprof; "
                            "echo \"${COMPREPLY[@]}\"; "
                            "COMP_WORDS=(rprof run --repe); COMP_CWORD=2; _rprof; "
                            "echo \"${COMPREPLY[@]}\"; "
                            "COMP_WORDS=(rprof help jso); COMP_CWORD=2; _rprof; "
                            "echo \"${COMPREPLY[@]}\""],
                           env=self.env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(),
                         ["complete -o bashdefault -o default -F _rprof rprof", "measure",
                          "--repeat", "json"])

    def test_the_installed_rprof_finds_its_data(self):
        # Metric groups, the sim runner and the kernels come with it, not from the checkout.
        doctor = subprocess.run([self.installed, "--db", self.db, "doctor", "--format", "json"],
                                cwd=self.tmp, env=self.env, capture_output=True, text=True)
        self.assertIn(doctor.returncode, (0, 3), doctor.stderr)
        self.assertNotIn("rprof-sim-runner not found", doctor.stdout)
        self.assertNotIn("/profiler/counters/groups", doctor.stdout)


if __name__ == "__main__":
    if not shutil.which("rprof"):
        print("rprof is not installed (not on PATH): scripts/bootstrap installs it",
              file=sys.stderr)
        sys.exit(77)
    if not shutil.which("pkg-config") or not shutil.which("cc"):
        print("pkg-config or cc missing: scripts/bootstrap installs them", file=sys.stderr)
        sys.exit(77)
    rprof_harness.main()
