"""rprof on the user's own code (issue 4): whole programs (`rprof ./prog args...`), kernel plugins
(`rprof run ./libk.so --kernel NAME`) and marker regions, through the real binary, each checked on
its exit status, its one error line, its stdout and the rows it stored.

Started by meson as `python3 programs_test.py PATH/TO/rprof`; the helper programs come through
the environment (tests/meson.build): RPROF_CLI_TARGETS (the build folder of tests/cli_targets),
RPROF_EXAMPLE_PLUGIN and RPROF_MARKER_EXAMPLE (kernels/examples). Run by hand, they default to
the same places in the build folder above rprof's.

Programs run with `--counters pmu` (software events here): `auto` would run each one again under
valgrind for the sim source, which has its own suite.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import WITHOUT_ELFUTILS, RprofTestCase  # noqa: E402
from fixtures import (PMU, ROOF_CEILINGS, build_dir, children, cli_target,  # noqa: E402
                      comm, insert_profile, program)


def example_plugin():
    return os.environ.get("RPROF_EXAMPLE_PLUGIN") or os.path.join(
        build_dir(), "kernels", "examples", "libexample_plugin.so")


def marker_example():
    return os.environ.get("RPROF_MARKER_EXAMPLE") or os.path.join(
        build_dir(), "kernels", "examples", "marker_example")


class ProgramTestCase(RprofTestCase):
    def setUp(self):
        super().setUp()
        for path in (rprof_harness.RPROF, cli_target("crasher"), example_plugin(),
                     marker_example()):
            self.assertTrue(os.path.exists(path), f"{path} is not built (ninja -C build)")

    def metric(self, run_id, name, source, region=""):
        rows = self.query("select value, unit, note from metrics where run_id = ? and region = ?"
                          " and name = ? and source = ?", (run_id, region, name, source))
        self.assertEqual(len(rows), 1, f"metric {region}/{name}/{source} of run {run_id}: {rows}")
        return rows[0]

    def assertFailedRun(self, r, status, *note_parts):
        """rprof exit 1 with one error line naming the stored run and its status."""
        self.assertExit(r, 1, " " + status + ": ", "(stored)", *note_parts)
        self.assertEqual(r.stderr.count("rprof: error: "), 1, r)
        row = self.run_row()
        self.assertIn(f"rprof: error: run {row['id']} {status}: ", r.stderr)
        self.assertEqual(row["status"], status)
        return row


class Programs(ProgramTestCase):
    def test_echo_passes_output_through_and_is_stored(self):
        echo = program("echo")
        r = self.rprof_in(self.tmp, "run", *PMU, echo, "hello")
        self.assertEqual(r.returncode, 0, r)
        # The program's output alone on stdout, rprof's report on stderr.
        self.assertEqual(r.stdout, "hello\n", r)
        row = self.run_row()
        self.assertTrue(r.stderr.startswith(f"run {row['id']}  {echo} hello  ok"), r)
        self.assertEqual(row["target_kind"], "executable")
        # The target is the file's canonical path; the command keeps the name typed.
        self.assertEqual(row["target"], os.path.realpath(echo))
        self.assertEqual(json.loads(row["command"]), [echo, "hello"])
        self.assertEqual(row["cwd"], os.path.realpath(self.tmp))
        self.assertEqual(row["exit_code"], 0)
        self.assertIsNone(row["signal"])
        self.assertEqual(row["status"], "ok")
        self.assertEqual(json.loads(row["params"]), {})
        self.assertIsNone(row["precision"])
        self.assertEqual(row["repetitions"], 1)
        self.assertEqual(row["sources"], "clock,pmu")
        self.assertEqual(self.scalar("select count(*) from samples where run_id = ?",
                                     (row["id"],)), 1)
        time_s = self.metric(row["id"], "time_s", "clock")[0]
        self.assertGreater(time_s, 0)
        self.assertLess(time_s, 10)
        task_clock = self.metric(row["id"], "perf::TASK-CLOCK", "pmu")[0]
        self.assertGreater(task_clock, 0, "the software task clock counts the child")

    def test_without_run_command(self):
        # `rprof PROGRAM ARGS` is `rprof run PROGRAM ARGS`; without options before it, the
        # counters are the default (auto, which never runs a program a second time).
        echo = program("echo")
        r = self.rprof(echo, "hello", "world", timeout=300)
        self.assertEqual(r.returncode, 0, r)
        self.assertTrue(r.stdout.startswith("hello world\n"), r)
        self.assertNotIn("rprof: error", r.stderr)
        row = self.run_row()
        self.assertEqual((row["target_kind"], row["status"], row["exit_code"]),
                         ("executable", "ok", 0))
        self.assertEqual(json.loads(row["command"]), [echo, "hello", "world"])

    def test_name_found_on_path(self):
        r = self.rprof_program_ok("run", *PMU, "-q", "echo", "from", "path")
        self.assertEqual((r.stdout, r.stderr), ("from path\n", f"{self.run_row()['id']}\n"))
        row = self.run_row()
        self.assertEqual(json.loads(row["command"]), ["echo", "from", "path"])
        self.assertEqual((row["target_kind"], row["status"]), ("executable", "ok"))

    def test_program_arguments_that_look_like_rprof_options(self):
        echo = program("echo")
        args = ["--format", "json", "-q", "--repeat", "5", "--db", self.path("other.db"), "--",
                "-o", "x"]
        r = self.rprof_program_ok("run", *PMU, echo, *args)
        self.assertEqual(r.stdout, " ".join(args) + "\n")
        # The report is rprof's default table, not JSON, and not the run id alone.
        self.assertIn(f"run {self.run_row()['id']}  {echo} --format json", r.stderr)
        self.assertIn("\nmetric ", r.stderr)
        row = self.run_row()
        self.assertEqual(json.loads(row["command"]), [echo] + args)
        self.assertEqual(row["repetitions"], 1)
        self.assertFalse(os.path.exists(self.path("other.db")))
        self.assertFalse(os.path.exists(self.path("x")))

    def test_double_dash_before_the_program(self):
        r = self.rprof_program_ok("run", *PMU, "-q", "--", program("echo"), "a", "--", "b")
        self.assertEqual((r.stdout, r.stderr), ("a -- b\n", f"{self.run_row()['id']}\n"))

    def test_repeat_stores_each_execution(self):
        r = self.rprof_program_ok("run", *PMU, "--repeat", "3", "--format", "json",
                                  program("echo"), "again")
        self.assertEqual(r.stdout, "again\n" * 3, r)
        report = json.loads(r.stderr)
        run_id = report["run_id"]
        self.assertEqual(report["repetitions"], 3)
        self.assertEqual(len(report["samples_s"]), 3)
        self.assertEqual(self.run_row(run_id)["repetitions"], 3)
        samples = self.query("select rep, time_s from samples where run_id = ? order by rep",
                             (run_id,))
        self.assertEqual([rep for rep, _ in samples], [0, 1, 2])
        self.assertTrue(all(t > 0 for _, t in samples), samples)
        median = sorted(t for _, t in samples)[1]
        self.assertAlmostEqual(self.metric(run_id, "time_s", "clock")[0], median, places=9)

    def test_failing_program(self):
        sh = program("sh")
        r = self.rprof("run", *PMU, "--repeat", "3", sh, "-c",
                       "echo out; echo err >&2; exit 3")
        row = self.assertFailedRun(r, "failed", "exited with status 3")
        self.assertTrue(r.stdout.startswith("out\n"), r)
        self.assertEqual(r.stdout.count("out\n"), 1, "the repetitions stop at the failure")
        self.assertTrue(r.stderr.startswith("err\n"), "the program's stderr passes through")
        self.assertEqual(row["exit_code"], 3)
        self.assertIsNone(row["signal"])
        self.assertIn("exited with status 3", row["note"])
        self.assertEqual(row["repetitions"], 1)
        self.assertEqual(json.loads(row["command"]), [sh, "-c", "echo out; echo err >&2; exit 3"])

    def test_crashing_program(self):
        crasher = cli_target("crasher")
        r = self.rprof("run", *PMU, crasher)
        row = self.assertFailedRun(r, "crashed", "signal 11")
        self.assertTrue(r.stdout.startswith("crasher: about to crash\n"), r)
        self.assertIn("crashed", r.stderr.split("rprof: error:")[0],
                      "the report is printed before the error")
        self.assertEqual(row["signal"], signal.SIGSEGV)
        self.assertIsNone(row["exit_code"])
        self.assertIn("killed by signal 11", row["note"])
        self.assertEqual(row["target"], os.path.realpath(crasher))
        # What was measured is kept.
        self.assertGreater(self.metric(row["id"], "time_s", "clock")[0], 0)
        self.assertEqual(self.scalar("select count(*) from samples where run_id = ?",
                                     (row["id"],)), 1)

    def test_timeout_kills_and_stores_interrupted(self):
        start = time.monotonic()
        r = self.rprof("run", *PMU, "--timeout", "1", program("sleep"), "30", timeout=30)
        elapsed = time.monotonic() - start
        row = self.assertFailedRun(r, "interrupted", "--timeout")
        self.assertLess(elapsed, 5, "killed soon after the timeout")
        self.assertGreaterEqual(elapsed, 1)
        self.assertIn("timed out after 1 s (--timeout)", row["note"])
        self.assertEqual(row["signal"], signal.SIGTERM)
        self.assertIsNone(row["exit_code"])
        time_s = self.metric(row["id"], "time_s", "clock")[0]
        self.assertGreaterEqual(time_s, 1)
        self.assertLess(time_s, 5)

    def test_timeout_kills_a_program_that_ignores_sigterm(self):
        start = time.monotonic()
        r = self.rprof("run", *PMU, "--timeout", "0.5", cli_target("stubborn"), timeout=30)
        elapsed = time.monotonic() - start
        row = self.assertFailedRun(r, "interrupted", "--timeout")
        self.assertTrue(r.stdout.startswith("stubborn: ready\n"), r)
        self.assertLess(elapsed, 8, "SIGKILL follows when SIGTERM is ignored")
        self.assertEqual(row["signal"], signal.SIGKILL)
        self.assertIn("timed out after 0.5 s (--timeout)", row["note"])

    def test_megabytes_of_output_pass_through(self):
        size = 8 * 1000 * 1000 + 7
        r = self.rprof("run", *PMU, "-q", cli_target("print_bytes"), str(size), timeout=60)
        self.assertEqual(r.returncode, 0, rprof_harness.Result(r.args, r.returncode,
                                                               r.stdout[-200:], r.stderr))
        row = self.run_row()
        self.assertEqual(r.stderr, f"{row['id']}\n")
        self.assertEqual(len(r.stdout), size)
        pattern = "abcdefghijklmnopqrstuvwxyz"
        expected = pattern * (size // 26) + pattern[:size % 26]
        self.assertTrue(r.stdout == expected, "the program's output was altered")
        self.assertEqual(row["status"], "ok")

    def forward_signal(self, sig):
        sleep = program("sleep")
        argv = self.command(["run", *PMU, sleep, "30"])
        start = time.monotonic()
        proc = subprocess.Popen(argv, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            # Wait until the program runs (the child has become sleep): rprof forwards from then.
            deadline = time.monotonic() + 10
            while not any(comm(c) == "sleep" for c in children(proc.pid)):
                self.assertIsNone(proc.poll(), "rprof ended before the program started")
                self.assertLess(time.monotonic(), deadline, "the program never started")
                time.sleep(0.02)
            proc.send_signal(sig)
            stdout, stderr = proc.communicate(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertLess(time.monotonic() - start, 10)
        return rprof_harness.Result(argv[1:], proc.returncode, stdout, stderr)

    def test_sigterm_is_forwarded_and_the_run_stored(self):
        r = self.forward_signal(signal.SIGTERM)
        row = self.assertFailedRun(r, "interrupted", "interrupted by ")
        self.assertEqual(row["signal"], signal.SIGTERM, "the program died of the forwarded signal")
        self.assertIn("interrupted by SIGTERM during the program's execution", row["note"])

    def test_sigint_is_forwarded_and_the_run_stored(self):
        r = self.forward_signal(signal.SIGINT)
        row = self.assertFailedRun(r, "interrupted", "interrupted by ")
        self.assertEqual(row["signal"], signal.SIGINT)

    def test_declared_flops_and_bytes(self):
        r = self.rprof_program_ok("run", *PMU, "--flops", "2e6", "--bytes", "24e6", "--format",
                                  "json", program("true"))
        report = json.loads(r.stderr)
        run_id = report["run_id"]
        self.assertEqual(self.run_row(run_id)["sources"], "clock,model,pmu")
        flops, unit, note = self.metric(run_id, "flops", "model")
        self.assertEqual((flops, unit), (2e6, "FLOP"))
        self.assertIn("--flops", note)
        bytes_, unit, note = self.metric(run_id, "bytes_dram", "model")
        self.assertEqual((bytes_, unit), (24e6, "B"))
        self.assertIn("--bytes", note)
        time_s = self.metric(run_id, "time_s", "clock")[0]
        gflops, unit, _ = self.metric(run_id, "gflops", "model")
        self.assertEqual(unit, "GFLOP/s")
        self.assertAlmostEqual(gflops / (2e6 / time_s / 1e9), 1, places=6)
        ai, unit, _ = self.metric(run_id, "ai_dram", "model")
        self.assertEqual(unit, "FLOP/B")
        self.assertAlmostEqual(ai, 2e6 / 24e6, places=12)
        self.assertEqual(report["metrics"]["flops"]["model"]["value"], 2e6)
        self.assertAlmostEqual(report["metrics"]["ai_dram"]["model"]["value"], 1 / 12)

    def test_json_report_parses_when_the_program_prints_to_stdout(self):
        # perf stat's rule: a program's report goes to stderr, so `rprof run --format json
        # ./app > out` leaves out as the program wrote it, and `2> report.json` parses.
        sh = program("sh")
        script = 'echo "{not json"; echo "[1, 2"'
        r = self.rprof_program_ok("run", *PMU, "--format", "json", sh, "-c", script)
        self.assertEqual(r.stdout, "{not json\n[1, 2\n")
        report = json.loads(r.stderr)
        self.assertEqual((report["run_id"], report["status"]), (self.run_row()["id"], "ok"))
        # CSV and the table alike; a kernel, which prints nothing, keeps stdout for its report.
        r = self.rprof_program_ok("run", *PMU, "--format", "csv", sh, "-c", script)
        self.assertEqual(r.stdout, "{not json\n[1, 2\n")
        self.assertTrue(r.stderr.startswith("run_id,region,metric,"), r)
        r = self.rprof_ok("run", "triad", "-p", "n=1000", "--repeat", "2", *PMU, "--format",
                          "json")
        self.assertEqual(json.loads(r.stdout)["target"], "triad")

    def test_output_file_keeps_both_streams_for_the_program(self):
        # A program that writes on both streams: -o FILE is where the report is clean.
        out = self.path("report.json")
        r = self.rprof_ok("run", *PMU, "-q", "-o", self.path("id"), program("true"))
        with open(self.path("id")) as f:
            self.assertEqual(f.read(), f"{self.run_row()['id']}\n")
        r = self.rprof("run", *PMU, "-o", out, "--format", "json", program("sh"), "-c",
                       "echo out; echo err >&2")
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "out\n", "err\n"))
        with open(out) as f:
            self.assertEqual(json.load(f)["run_id"], self.run_row()["id"])

    def test_output_file_keeps_stdout_for_the_program(self):
        out = self.path("report.json")
        r = self.rprof_ok("run", *PMU, "-o", out, "--format", "json", program("echo"), "only",
                          "this")
        self.assertEqual((r.stdout, r.stderr), ("only this\n", ""))
        with open(out) as f:
            report = json.load(f)
        self.assertEqual(report["status"], "ok")
        self.assertEqual(report["command"], [program("echo"), "only", "this"])
        self.assertEqual(report["run_id"], self.run_row()["id"])


class BadPrograms(ProgramTestCase):
    """A target that cannot be run: exit 2 naming it and why, nothing stored, no database."""

    def assertRefused(self, target, code, *parts):
        r = self.rprof("run", *PMU, target)
        self.assertError(r, code, *parts)
        self.assertEqual(self.runs_stored(), 0, "nothing may be stored")
        return r

    def test_missing_path(self):
        missing = self.path("no-such-program")
        self.assertRefused(missing, 2, f"{missing}: No such file or directory")
        self.assertFalse(os.path.exists(self.db), "a usage error must not create the database")
        self.assertRefused("./no-such-program", 2, "./no-such-program: ")

    def test_directory(self):
        folder = self.path("a-folder")
        os.mkdir(folder)
        self.assertRefused(folder, 2, f"{folder}: is a directory")

    def test_not_executable(self):
        plain = self.path("plain")
        shutil.copyfile(program("true"), plain)
        os.chmod(plain, 0o644)
        self.assertRefused(plain, 2, f"{plain}: not executable", "chmod +x")

    def test_shell_script_runs_as_the_kernel_runs_it(self):
        # As under perf stat or time: execve starts the #! line's interpreter (issue 29; they
        # were refused with a hint before).
        script = self.path("job.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho from the script\n")
        os.chmod(script, 0o755)
        r = self.rprof_program_ok("run", "--counters", "pmu", script)
        self.assertIn("from the script", r.stdout)

    def test_script_runs_with_its_interpreters_options(self):
        script = self.path("job.py")
        with open(script, "w") as f:
            f.write("#!/usr/bin/python3 -u\nprint('from the script')\n")
        os.chmod(script, 0o755)
        r = self.rprof_program_ok("run", "--counters", "pmu", script)
        self.assertIn("from the script", r.stdout)

    def test_text_without_a_shebang_line_is_refused_with_the_way_out(self):
        script = self.path("job.txt")
        with open(script, "w") as f:
            f.write("echo from the script\n")
        os.chmod(script, 0o755)
        self.assertRefused(script, 2, f"{script}: neither an ELF executable",
                           f"rprof /bin/sh {script}")

    def test_binary_that_is_not_elf(self):
        blob = self.path("blob")
        with open(blob, "wb") as f:
            f.write(b"MZ\x90\x00" + bytes(range(256)) * 4)
        os.chmod(blob, 0o755)
        r = self.assertRefused(blob, 2, f"{blob}: neither an ELF executable")
        self.assertNotIn("/bin/sh", r.stderr)

    def test_truncated_elf(self):
        # ELF magic, nothing behind it: passes the checks, then the kernel refuses it.
        broken = self.path("broken")
        with open(broken, "wb") as f:
            f.write(b"\x7fELF\x02\x01\x01\x00")
        os.chmod(broken, 0o755)
        r = self.rprof("run", *PMU, broken)
        self.assertError(r, 2, broken, "a truncated ELF file")
        self.assertEqual(self.runs_stored(), 0)

    def test_unknown_name(self):
        r = self.rprof("run", *PMU, "no-such-program-xyz")
        self.assertError(r, 2, "'no-such-program-xyz'")
        self.assertFalse(os.path.exists(self.db))

    def test_kernel_options_with_a_program(self):
        echo = program("echo")
        self.assertError(self.rprof("run", *PMU, "-p", "n=10", echo), 2,
                         "--param sets kernel parameters")
        self.assertError(self.rprof("run", *PMU, "--kernel", "saxpy", echo), 2,
                         "--kernel chooses a kernel inside a plugin")
        self.assertFalse(os.path.exists(self.db))


class Plugins(ProgramTestCase):
    def test_kernels_lists_the_plugin(self):
        plugin = example_plugin()
        r = self.rprof_ok("kernels", plugin, db=False)
        rows = {line.split()[0]: line.split() for line in r.stdout.splitlines()
                if line.split()[:1] in (["saxpy"], ["daxpy"])}
        self.assertEqual(sorted(rows), ["daxpy", "saxpy"], r)
        self.assertEqual(rows["saxpy"][1], "fp32")
        self.assertEqual(rows["daxpy"][1], "fp64")
        self.assertIn("2*n", rows["saxpy"])
        self.assertIn("12*n", rows["saxpy"])
        self.assertIn("24*n", rows["daxpy"])

        kernels = json.loads(self.rprof_ok("kernels", "--format", "json", plugin,
                                           db=False).stdout)
        by_name = {k["name"]: k for k in kernels}
        self.assertEqual(sorted(by_name), ["daxpy", "saxpy"])
        for name, precision, bytes_formula in (("saxpy", "fp32", "12*n"),
                                               ("daxpy", "fp64", "24*n")):
            k = by_name[name]
            self.assertEqual((k["precision"], k["flops"], k["bytes"]),
                             (precision, "2*n", bytes_formula))
            self.assertEqual(k["origin"], plugin)
            self.assertEqual([p["name"] for p in k["params"]], ["n"])
        self.assertFalse(os.path.exists(self.db))

    def test_bare_file_name_in_the_current_folder(self):
        # dlopen would search the library path for a bare name: rprof loads ./NAME.
        folder, name = os.path.split(example_plugin())
        r = self.rprof_in(folder, "kernels", "--format", "json", name)
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(sorted(k["name"] for k in json.loads(r.stdout)), ["daxpy", "saxpy"])

    def test_run_a_plugin_kernel(self):
        plugin = example_plugin()
        report = self.run_json(*PMU, plugin, "--kernel", "saxpy", "-p", "n=1000", "--repeat", "2")
        run_id = report["run_id"]
        row = self.run_row(run_id)
        self.assertEqual((row["target_kind"], row["target"], row["status"], row["precision"]),
                         ("plugin", "saxpy", "ok", "fp32"))
        self.assertEqual(json.loads(row["params"]), {"n": 1000})
        # The plugin it came from is kept, so same-named kernels of two plugins stay apart.
        self.assertEqual(json.loads(row["command"]), [plugin])
        self.assertEqual(row["repetitions"], 2)
        self.assertEqual(self.scalar("select count(*) from samples where run_id = ?", (run_id,)),
                         2)
        self.assertEqual(self.metric(run_id, "flops", "model")[:2], (2000.0, "FLOP"))
        self.assertEqual(self.metric(run_id, "flops_sp", "model")[0], 2000.0)
        self.assertEqual(self.metric(run_id, "bytes_dram", "model")[:2], (12000.0, "B"))
        self.assertEqual(report["metrics"]["flops"]["model"]["note"], "2*n")
        self.assertAlmostEqual(self.metric(run_id, "ai_dram", "model")[0], 2 / 12)

    def test_run_a_plugin_without_run(self):
        # `rprof PLUGIN.so OPTIONS`: a plugin is not a program, its options are rprof's.
        r = self.rprof_ok(example_plugin(), "--kernel", "daxpy", "-p", "n=500", "--repeat", "1",
                          *PMU, "-q")
        run_id = int(r.stdout)
        row = self.run_row(run_id)
        self.assertEqual((row["target_kind"], row["target"], row["precision"]),
                         ("plugin", "daxpy", "fp64"))
        self.assertEqual(self.metric(run_id, "flops", "model")[0], 1000.0)
        self.assertEqual(self.metric(run_id, "bytes_dram", "model")[0], 12000.0)

    def test_several_kernels_need_kernel_option(self):
        plugin = example_plugin()
        for args in (["run", *PMU, plugin], [plugin]):
            with self.subTest(args=args):
                r = self.rprof(*args)
                self.assertError(r, 2, f"{plugin} holds several kernels", "--kernel",
                                 f"rprof kernels {plugin}")
        self.assertFalse(os.path.exists(self.db))

    def test_unknown_kernel_in_a_plugin(self):
        plugin = example_plugin()
        r = self.rprof("run", *PMU, plugin, "--kernel", "nosuch")
        self.assertError(r, 2, "unknown kernel 'nosuch'", "saxpy", "daxpy")
        r = self.rprof("run", *PMU, plugin, "--kernel", "sxapy")
        self.assertError(r, 2, "unknown kernel 'sxapy'; did you mean 'saxpy'?")
        self.assertFalse(os.path.exists(self.db))

    def test_unknown_kernel_hint_lists_the_plugin(self):
        # The way out must work: `rprof kernels` alone lists the built-ins, not the plugin's.
        plugin = example_plugin()
        r = self.rprof("run", *PMU, plugin, "--kernel", "nosuch")
        self.assertError(r, 2, "unknown kernel 'nosuch'")
        self.assertIn(f"rprof kernels {plugin}", r.stderr,
                      "the hint should name the command that lists this plugin's kernels")

    def test_shared_object_without_the_abi_symbol(self):
        not_plugin = cli_target("libno_abi_plugin.so")
        for args in (["run", *PMU, not_plugin], ["kernels", not_plugin]):
            with self.subTest(command=args[0]):
                r = self.rprof(*args)
                self.assertError(r, 2, f"{not_plugin}: not an rprof kernel plugin",
                                 "rprof_kernels")
        self.assertFalse(os.path.exists(self.db))

    def test_wrong_abi_version(self):
        future = cli_target("libwrong_abi_plugin.so")
        for args in (["run", *PMU, future, "--kernel", "future"], ["run", *PMU, future],
                     ["kernels", future]):
            with self.subTest(args=args):
                r = self.rprof(*args)
                # Exit 3, both versions named; the plugin's kernels (abort()) never called.
                self.assertError(r, 3, future, "version 999", "version 1")
        self.assertFalse(os.path.exists(self.db))

    def test_missing_plugin(self):
        missing = self.path("libgone.so")
        for args in (["run", *PMU, missing], ["kernels", missing], [missing]):
            with self.subTest(args=args):
                self.assertError(self.rprof(*args), 2, f"{missing}: No such file or directory")
        self.assertFalse(os.path.exists(self.db))

    def test_program_options_with_a_kernel(self):
        # --flops/--bytes are for programs; a kernel's model comes from its formulas. Refused
        # like --param with a program, never silently dropped (--timeout holds for kernels too,
        # issue 41: robustness_test.py's PluginIsolationTest).
        for option, value in (("--flops", "5"), ("--bytes", "5")):
            with self.subTest(option=option):
                r = self.rprof("run", *PMU, example_plugin(), "--kernel", "saxpy", "-p", "n=100",
                               "--repeat", "1", option, value)
                self.assertError(r, 2, option)
        self.assertEqual(self.runs_stored(), 0)


class Markers(ProgramTestCase):
    N = 200000

    def test_regions_are_stored(self):
        example = marker_example()
        r = self.rprof_program_ok("run", *PMU, "--format", "json", example, str(self.N))
        self.assertTrue(r.stdout.startswith(f"marker_example: n={self.N} repetitions=10 "), r)
        self.assertTrue(r.stdout.endswith("markers active\n"), r)
        report = json.loads(r.stderr)
        run_id = report["run_id"]
        regions = report["regions"]
        self.assertEqual(sorted(regions), ["init", "triad"])
        # Two threads: init once each, triad 10 times each.
        self.assertEqual(regions["triad"]["calls"]["clock"]["value"], 20)
        self.assertEqual(regions["init"]["calls"]["clock"]["value"], 2)
        self.assertGreater(regions["triad"]["time_s"]["clock"]["value"], 0)
        self.assertEqual(regions["triad"]["flops"]["model"]["value"], 2.0 * self.N * 20)

        stored = {(region, name, source): value for region, name, source, value in self.query(
            "select region, name, source, value from metrics where run_id = ? and region != ''",
            (run_id,))}
        self.assertEqual(stored[("triad", "calls", "clock")], 20)
        self.assertEqual(stored[("init", "calls", "clock")], 2)
        self.assertEqual(stored[("triad", "flops", "model")], 2.0 * self.N * 20)
        self.assertEqual(stored[("triad", "bytes_dram", "model")], 24.0 * self.N * 20)
        self.assertAlmostEqual(stored[("triad", "ai_dram", "model")], 2 / 24)
        triad_time = stored[("triad", "time_s", "clock")]
        init_time = stored[("init", "time_s", "clock")]
        self.assertGreater(triad_time, 0)
        self.assertGreater(init_time, 0)
        self.assertAlmostEqual(stored[("triad", "gflops", "model")] /
                               (2.0 * self.N * 20 / triad_time / 1e9), 1, places=6)
        self.assertNotIn(("init", "flops", "model"), stored, "init declares nothing")
        whole = self.metric(run_id, "time_s", "clock")[0]
        self.assertLess(max(triad_time, init_time), 2 * whole,
                        "region totals over two threads fit in twice the run's wall time")
        row = self.run_row(run_id)
        self.assertEqual((row["status"], row["exit_code"]), ("ok", 0))
        if WITHOUT_ELFUTILS:  # the run says why its functions have no time
            self.assertIn("built without elfutils", row["note"])
        else:
            self.assertIsNone(row["note"])

    def test_pmu_region_says_what_threads_that_never_entered_it_did(self):
        # Issue 24: under pmu a region counts the threads that entered it only; the work an
        # OpenMP team does for a region the main thread opened was missing without a word.
        # The marker library now measures the CPU time of threads that never entered the region
        # while it was open (cpu_elsewhere_s), and the run says what the counts miss.
        # "each" is opened by both threads of the team: their waits for each other are theirs.
        if rprof_harness.SANITIZED:
            self.skipTest("the fixture links the sanitized marker library uninstrumented")
        program = cli_target("omp_regions")
        if not os.path.exists(program):
            self.skipTest("omp_regions not built (meson found no OpenMP)")
        env = dict(self.env, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
        # 10^7 elements, about 5 ms a region on a quiet core: the pool thread's wake-up before
        # its first call of "each" (0.02-0.2 ms, counted elsewhere: the library cannot know it
        # belongs to the region yet) stays small beside the region's own time.
        r = self.rprof_program_ok("run", *PMU, "--format", "json", program, "10000000", env=env)
        report = json.loads(r.stderr)
        team, each = report["regions"]["team"], report["regions"]["each"]
        notes = [t["detail"] for t in report["trust"] if t["kind"] == "untrusted"]
        team_elsewhere = team["cpu_elsewhere_s"]["clock"]
        self.assertIn("per-thread counters did not count", team_elsewhere["note"])
        # The pool thread did half the loop: about the main thread's own CPU time, a real share
        # of its time inside even when a busy machine stretched that.
        self.assertGreater(team_elsewhere["value"],
                           0.1 * team["thread_time_s"]["clock"]["value"], team)
        self.assertTrue(any(n.startswith("region 'team': other threads of the process used")
                            and "--counters sim" in n for n in notes), notes)
        self.assertLess(each["cpu_elsewhere_s"]["clock"]["value"],
                        0.1 * each["thread_time_s"]["clock"]["value"], each)
        self.assertFalse(any("region 'each'" in n for n in notes), notes)
        stored = self.query("select value from metrics where region = 'team' and "
                            "name = 'cpu_elsewhere_s' and source = 'clock'")
        self.assertAlmostEqual(stored[0][0], team_elsewhere["value"], places=9)

    def test_regions_are_placed_on_the_roofline(self):
        # A profile with known ceilings, on the machine row a first run made (plot_test's);
        # `machine measure` would take seconds. It has 1- and 2-thread ceilings: the example
        # runs each region in two threads side by side, so they are judged on 2-thread roofs.
        self.rprof_ok("run", "copy", "-p", "n=1000", "--counters", "model", "-q")
        profile_id = insert_profile(self.db)
        r = self.rprof_program_ok("run", *PMU, "--format", "json", marker_example(), str(self.N),
                                  "4")
        report = json.loads(r.stderr)
        whole = report["metrics"]["time_s"]["clock"]["value"]
        triad = report["regions"]["triad"]
        # Under pmu (no FLOP events here) triad is placed on its declared work.
        placement = triad["placement"]
        self.assertTrue(placement["placed"], placement)
        self.assertTrue(placement["verdict"], placement)
        self.assertEqual(placement["profile_id"], profile_id)
        self.assertEqual(sorted(placement), sorted(report["placement"]), "the run's keys")
        self.assertEqual(placement["achieved_source"], "model")
        self.assertEqual(placement["compute_ceiling"], "fp64_avx2_fma")
        self.assertEqual(placement["peak_gflops"], 222, "the 2-thread roof")
        dram = [lv for lv in placement["levels"] if lv["level"] == "dram"]
        self.assertEqual(len(dram), 1, placement)
        self.assertAlmostEqual(dram[0]["ai"], 2 / 24)
        # The region's time is its wall time: inside the program's, the sum over threads apart.
        time_s = triad["time_s"]["clock"]["value"]
        self.assertGreater(time_s, 0)
        self.assertLessEqual(time_s, whole)
        self.assertEqual(triad["threads"]["clock"]["value"], 2)
        self.assertGreaterEqual(triad["thread_time_s"]["clock"]["value"], time_s)
        self.assertAlmostEqual(placement["achieved_gflops"],
                               2.0 * self.N * 8 / time_s / 1e9, places=6)
        # init declares nothing: not placed, and says how to be.
        init = report["regions"]["init"]["placement"]
        self.assertFalse(init["placed"])
        self.assertIn("rprof_region_declare", init["reason"])

        # The table: a line per region under the run's roofline lines; `show` alike.
        shown = self.rprof_ok("show", str(report["run_id"]), "-v").stdout
        roofline = shown[shown.index("\nroofline (machine profile"):]
        self.assertIn("\n  region triad: " + placement["verdict"], roofline)
        self.assertIn("\n  region init: not placed: ", roofline)
        shown = json.loads(self.rprof_ok("show", str(report["run_id"]), "--format",
                                         "json").stdout)
        self.assertEqual(shown["regions"]["triad"]["placement"]["verdict"], placement["verdict"])

        # The plot: the region is a point of its own, though the whole run has no FLOPs.
        script = self.path("roofline.gp")
        r = self.rprof("plot", str(report["run_id"]), "--threads", "2", "--gnuplot", script)
        self.assertEqual(r.returncode, 0, r)
        # What cannot be drawn is said: the whole run and region init have no FLOPs.
        self.assertIn(f"rprof: note: plot: left out #{report['run_id']} {marker_example()}: no "
                      "FLOP count", r.stderr)
        self.assertIn(f"left out #{report['run_id']} {marker_example()} region init: ", r.stderr)
        with open(script) as f:
            text = f.read()
        self.assertIn(f'"#{report["run_id"]} {marker_example()} region triad (model)"', text)

    def test_regions_in_the_table(self):
        r = self.rprof_program_ok("run", *PMU, "-v", marker_example(), str(self.N), "2")
        self.assertIn("\nregion init\n", r.stderr)
        self.assertIn("\nregion triad\n", r.stderr)
        self.assertRegex(r.stderr, r"\ncalls +4 +count +clock")

    def run_unbalanced(self, mode):
        r = self.rprof_program_ok("run", *PMU, cli_target("unbalanced_markers"), mode)
        self.assertEqual("unbalanced_markers: done, markers active\n", r.stdout)
        row = self.run_row()
        self.assertEqual((row["status"], row["exit_code"]), ("ok", 0))
        self.assertTrue(row["note"], "the misuse is reported on the run")
        self.assertIn(row["note"], r.stderr, "and shown with it")
        regions = {name: value for name, value in self.query(
            "select region, value from metrics where run_id = ? and name = 'calls' and "
            "source = 'clock'", (row["id"],))}
        self.assertEqual(regions.get("fine"), 1, "well-formed regions are still measured")
        return row, regions

    def test_end_without_begin(self):
        row, regions = self.run_unbalanced("end-without-begin")
        self.assertIn("never-begun", row["note"])
        self.assertIn("without a matching begin", row["note"])
        self.assertNotIn("never-begun", regions, "an end alone is not a call")

    def test_same_name_nested(self):
        row, regions = self.run_unbalanced("nested")
        self.assertIn("nested", row["note"])
        self.assertIn("begun again while already open", row["note"])
        self.assertEqual(regions.get("nested"), 1, "the nested pair counts as one call")

    def test_both_misuses_are_reported(self):
        row, regions = self.run_unbalanced("both")
        self.assertEqual(regions.get("nested"), 1)
        for region in ("never-begun", "nested"):
            self.assertIn(region, row["note"], "every misuse is reported on the run, in words")

    def test_inherited_marker_variables_are_replaced(self):
        # A stale RPROF_MARKER_OUT in rprof's own environment must not leak to the program.
        stale = self.path("stale-markers.txt")
        env = dict(self.env, RPROF_MARKER_OUT=stale, RPROF_MARKER_EVENTS="PAPI_NO_SUCH")
        r = self.rprof_program_ok("run", *PMU, "-q", marker_example(), "1000", "1", env=env)
        self.assertFalse(os.path.exists(stale))
        run_id = int(r.stderr)
        self.assertEqual(self.metric(run_id, "calls", "clock", region="triad")[0], 2)

    def test_without_rprof_markers_are_off(self):
        env = {k: v for k, v in self.env.items() if not k.startswith("RPROF_")}
        env["TMPDIR"] = self.tmp
        proc = subprocess.run([marker_example(), "1000", "2"], cwd=self.tmp, env=env,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc)
        self.assertEqual(proc.stderr, "")
        self.assertRegex(proc.stdout, r"^marker_example: n=1000 repetitions=2 checksum=\S+ "
                                      r"markers off\n$")
        self.assertEqual(os.listdir(self.tmp), [], "outside rprof nothing is written")

        proc = subprocess.run([cli_target("unbalanced_markers"), "both"], cwd=self.tmp, env=env,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual((proc.returncode, proc.stderr), (0, ""), proc)
        self.assertEqual(proc.stdout, "unbalanced_markers: done, markers off\n")
        self.assertEqual(os.listdir(self.tmp), [])


class ProgramRoofs(ProgramTestCase):
    """The roof of a program's own work: its precision from the counted FLOPs, its threads from
    --threads or its CPU time / wall time (issue 13)."""

    def setUp(self):
        super().setUp()
        # The first run stores this machine; the profile is then made for it.
        self.rprof_program_ok("run", *PMU, "-q", program("true"))
        insert_profile(self.db, ROOF_CEILINGS)

    def sim_run(self, *args):
        """rprof run --counters sim ARGS as JSON; skips where this build has no sim source."""
        report = self.path("report.json")  # -o: the program's own output stays on stdout
        r = self.rprof("run", "--counters", "sim", "--format", "json", "-o", report, *args)
        if r.returncode == 3 and "sim" in r.stderr:
            self.skipTest(f"no sim source here: {r.stderr.strip()}")
        self.assertEqual(r.returncode, 0, r)
        with open(report) as f:
            return json.load(f)

    def test_fp64_only_program_is_placed_against_an_fp64_roof(self):
        out = self.sim_run(cli_target("triad_fp64"), "20000", "2")
        sim = {name: v["sim"]["value"] for name, v in out["metrics"].items() if "sim" in v}
        self.assertEqual(sim["flops_sp"], 0)
        self.assertGreaterEqual(sim["flops_dp"], 2 * 20000 * 2)
        p = out["placement"]
        self.assertTrue(p["placed"], p)
        self.assertEqual(p["precision"], "fp64")
        self.assertEqual(p["precision_note"], "fp64 (100 % of FLOPs, sim)")
        # A one-thread program: a 1-thread fp64 roof, never fp32's 100. Its loop is scalar (s
        # is volatile): the roof of the code it ran is fp64's scalar one (issue 24: before, the
        # widest, fp64_avx2_fma 50, which scalar code cannot reach), the widest said beside it.
        self.assertEqual(p["threads"], 1)
        self.assertRegex(p["threads_note"], r"^1 thread \(CPU time / wall time = \d")
        self.assertEqual(p["code"], "scalar code")
        self.assertEqual((p["compute_ceiling"], p["peak_gflops"]), ("fp64_scalar_fma", 7.5))
        self.assertEqual((p["widest_roof_ceiling"], p["widest_roof_gflops"]),
                         ("fp64_avx2_fma", 50))
        for level in p["levels"]:
            self.assertAlmostEqual(level["ridge_ai"], 7.5 / level["bandwidth_gbs"])
        # The fp64 roof of the ISA it used; never fp32's 100 promised.
        self.assertIn(" fp64 ", p["isa_note"])
        self.assertNotIn("could reach 100", p["isa_note"])
        self.assertEqual(self.scalar("select compute_ceiling from placements where run_id = ?",
                                     (out["run_id"],)), "fp64_scalar_fma")
        cpu_time, unit, note = self.metric(out["run_id"], "cpu_time_s", "clock")
        self.assertEqual(unit, "s")
        self.assertGreaterEqual(cpu_time, 0)
        self.assertIn("wait4", note)
        table = self.rprof_ok("show", str(out["run_id"]), "-v").stdout
        self.assertIn("roof of: fp64 (100 % of FLOPs, sim); 1 thread (CPU time / wall time = ",
                      table)

    def test_declared_threads_place_against_the_two_thread_roof(self):
        out = self.sim_run("--threads", "2", cli_target("triad_fp64"), "20000", "2")
        p = out["placement"]
        self.assertTrue(p["placed"], p)
        self.assertEqual((p["threads"], p["threads_note"]), (2, "2 threads (--threads)"))
        # Scalar code: the 2-thread scalar roof (the widest, fp64_avx2_fma 95, beside it).
        self.assertEqual((p["compute_ceiling"], p["peak_gflops"]), ("fp64_scalar_fma", 15))
        self.assertEqual(p["widest_roof_gflops"], 95)
        dram = [lv for lv in p["levels"] if lv["level"] == "dram"]
        for level in dram:
            self.assertEqual(level["bandwidth_gbs"], 30)
        self.assertEqual(self.metric(out["run_id"], "threads", "clock")[:2], (2, "count"))

    def test_two_busy_threads_are_measured_as_two(self):
        r = self.rprof_program_ok("run", *PMU, "--flops", "1e6", "--bytes", "1e6", "--format",
                                  "json", cli_target("spin_threads"), "2", "0.25")
        out = json.loads(r.stderr)
        cpu = out["metrics"]["cpu_time_s"]["clock"]["value"]
        wall = out["metrics"]["time_s"]["clock"]["value"]
        self.assertGreaterEqual(cpu, 0.45, "2 threads x 0.25 s of CPU each")
        if cpu / wall < 1.5:
            self.skipTest(f"CPU time / wall time {cpu / wall:.2f}: the machine is too busy to "
                          "run two threads at once")
        p = out["placement"]
        self.assertTrue(p["placed"], p)
        self.assertEqual(p["threads"], 2)
        self.assertRegex(p["threads_note"], r"^2 threads \(CPU time / wall time = [12]\.\d\d\)$")
        # No per-precision count (declared FLOPs only): the best of both at 2 threads, said.
        self.assertEqual(p["precision"], None)
        self.assertIn("not known", p["precision_note"])
        self.assertEqual((p["compute_ceiling"], p["peak_gflops"]), ("fp32_avx2_fma", 190))

    def test_threads_the_profile_lacks_go_to_the_nearest_said(self):
        out = json.loads(self.rprof_program_ok("run", *PMU, "--flops", "1e6", "--bytes", "1e6",
                                               "--threads", "8", "--format", "json",
                                               program("true")).stderr)
        p = out["placement"]
        self.assertTrue(p["placed"], p)
        self.assertEqual(p["threads"], 2)
        self.assertIn("8 threads (--threads); placed against the 2-thread roof, the nearest",
                      p["threads_note"])
        self.assertIn("rprof machine measure --threads 8", p["threads_note"])

    def test_threads_option_errors(self):
        r = self.rprof("run", "--threads", "0", program("true"))
        self.assertError(r, 2, "--threads must be at least 1")
        r = self.rprof("run", "triad", "--threads", "2")
        self.assertError(r, 2, "--threads is for programs", "-p threads=N")
        self.assertEqual(self.scalar("select count(*) from runs"), 1)


if __name__ == "__main__":
    rprof_harness.main()
