"""The process side of reliability (issue 14): signals in every phase end it and store what was
measured, children never outlive rprof, temporary directories are swept, a program is executed
no more times than asked, numeric options stay in range, a failing sim step loses nothing.

Usage: process_test.py PATH/TO/rprof   (RPROF_CLI_TARGETS: the build's tests/cli_targets)
"""

import glob
import os
import signal
import subprocess
import sys
import time
import unittest

import rprof_harness
from fixtures import alive, children, cli_target, comm, sim_unavailable

TARGETS = os.environ.get("RPROF_CLI_TARGETS", "")
MODEL = ["--counters", "model"]


def wait_until(condition, timeout, step=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


class ProcessTest(rprof_harness.RprofTestCase):
    def setUp(self):
        super().setUp()
        self.scratch = self.path("tmp")
        os.mkdir(self.scratch)
        self.env["TMPDIR"] = self.scratch
        self.procs = []
        self.addCleanup(self.kill_leftovers)

    def kill_leftovers(self):
        for proc in self.procs:
            for child in children(proc.pid):
                try:
                    os.kill(child, signal.SIGKILL)
                except OSError:
                    pass
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    def start(self, *args, env=None):
        """rprof ARGS in its own session (its own process group, no terminal), as a job
        scheduler or a script started with setsid would run it."""
        proc = subprocess.Popen(self.command(args), env=env or self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.procs.append(proc)
        return proc

    def start_stubborn(self, *extra):
        """rprof profiling a program that ignores SIGINT and SIGTERM; returns (rprof, program
        pid) once the program is ready."""
        proc = self.start("run", *MODEL, *extra, cli_target("stubborn"))
        self.assertEqual(proc.stdout.readline(), "stubborn: ready\n")
        kids = children(proc.pid)
        self.assertEqual(len(kids), 1, kids)
        return proc, kids[0]

    def finish(self, proc, timeout=30):
        stdout, stderr = proc.communicate(timeout=timeout)
        return rprof_harness.Result(proc.args, proc.returncode, stdout, stderr)

    def stored_run(self):
        rows = self.query("select id, status, note from runs")
        self.assertEqual(len(rows), 1, rows)
        return rows[0]

    def metric_names(self, run_id):
        return {name for (name,) in self.query(
            "select name from metrics where run_id = ? and region = ''", (run_id,))}

    def scratch_dirs(self, pid):
        return glob.glob(os.path.join(self.scratch, f"rprof-{pid}.*"))


class Signals(ProcessTest):
    def test_sigint_to_the_process_group_during_the_sim_step_stores_the_run(self):
        why = sim_unavailable()
        if why:
            self.skipTest(why)
        proc = self.start("run", "triad", "-p", "n=5000000")
        # The kernel runs in a measuring worker (rprof-worker); valgrind comes after it, in the
        # sim step. A child still named "rprof" is not valgrind yet: the watchdog's short-lived
        # middle process, or a worker or valgrind between fork and its own name ("" : gone).
        def valgrind_children():
            return [c for c in children(proc.pid)
                    if comm(c) not in ("", "rprof", "rprof-worker")]

        self.assertTrue(wait_until(lambda: valgrind_children() or proc.poll() is not None, 120))
        valgrind = valgrind_children()
        self.assertTrue(valgrind, "rprof ended before its sim step")
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)
        start = time.monotonic()
        r = self.finish(proc)
        self.assertLess(time.monotonic() - start, 5, "the sim step did not end promptly")
        self.assertExit(r, 1, "interrupted by SIGINT during the sim step", "(stored)")
        run_id, status, note = self.stored_run()
        self.assertEqual(status, "interrupted")
        self.assertIn("interrupted by SIGINT during the sim step: sim counts absent", note)
        names = self.metric_names(run_id)
        self.assertIn("time_s", names)
        self.assertEqual(self.scalar(
            "select count(*) from metrics where run_id = ? and source = 'sim'", (run_id,)), 0)
        self.assertFalse(any(alive(p) for p in valgrind), "valgrind outlived the sim step")

    def test_sigterm_stops_a_program_that_ignores_it(self):
        proc, program = self.start_stubborn()
        proc.send_signal(signal.SIGTERM)
        r = self.finish(proc)
        self.assertExit(r, 1, "interrupted by SIGTERM during the program's execution")
        self.assertFalse(alive(program))
        _, status, note = self.stored_run()
        self.assertEqual(status, "interrupted")
        self.assertEqual(note, "interrupted by SIGTERM during the program's execution")

    def test_a_second_signal_kills_rprof_and_the_program_at_once(self):
        proc, program = self.start_stubborn()
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        start = time.monotonic()
        r = self.finish(proc)
        self.assertLess(time.monotonic() - start, 1.5)
        self.assertEqual(r.returncode, -signal.SIGTERM, r)
        self.assertTrue(wait_until(lambda: not alive(program), 1), "the program outlived rprof")

    def test_an_interrupted_kernel_names_the_signal_and_the_phase(self):
        proc = self.start("run", "triad", "-p", "n=100000", "--min-time", "60", *MODEL)
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        r = self.finish(proc)
        self.assertExit(r, 1, "interrupted by SIGTERM during the timed repetitions, after ")
        run_id, status, _ = self.stored_run()
        self.assertEqual(status, "interrupted")
        self.assertIn("time_s", self.metric_names(run_id))

    def test_a_signal_reaches_what_the_program_started(self):
        # sh waits for two sleeps in its process group: the signal rprof passes on and the
        # group's end take them all.
        proc = self.start("run", *MODEL, "/bin/sh", "-c", "sleep 300 & sleep 300; wait")
        self.assertTrue(wait_until(lambda: children(proc.pid) and
                                   len(children(children(proc.pid)[0])) == 2, 10))
        shell = children(proc.pid)[0]
        sleeps = children(shell)
        proc.send_signal(signal.SIGTERM)
        r = self.finish(proc)
        self.assertExit(r, 1, "interrupted by SIGTERM")
        self.assertTrue(wait_until(lambda: not any(alive(p) for p in sleeps + [shell]), 3),
                        "the program's children outlived it")


class InheritedSignals(ProcessTest):
    def test_a_program_keeps_the_signals_rprof_was_started_ignoring(self):
        # As a shell starts `rprof ./app &` in a script: SIGINT ignored. rprof catches it for
        # itself, but the program gets the disposition rprof inherited, not rprof's handler.
        def ignore_sigint():
            signal.signal(signal.SIGINT, signal.SIG_IGN)

        proc = subprocess.Popen(
            self.command(["run", *MODEL, "/bin/sh", "-c", "grep SigIgn /proc/$$/status"]),
            env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=ignore_sigint)
        stdout, stderr = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, stderr)
        ignored = int(stdout.split()[1], 16)
        self.assertTrue(ignored & (1 << (signal.SIGINT - 1)), stdout)
        self.assertFalse(ignored & (1 << (signal.SIGTERM - 1)), stdout)


class Children(ProcessTest):
    def test_kill_9_takes_the_program_along_and_the_next_start_sweeps_the_temp_dir(self):
        proc, program = self.start_stubborn()
        self.assertEqual(len(self.scratch_dirs(proc.pid)), 1, os.listdir(self.scratch))
        proc.kill()
        proc.wait()
        self.assertTrue(wait_until(lambda: not alive(program), 1.0),
                        "the program outlived rprof by more than 1 s")
        self.assertEqual(len(self.scratch_dirs(proc.pid)), 1)
        self.rprof_ok("kernels", db=False)
        self.assertEqual(self.scratch_dirs(proc.pid), [], os.listdir(self.scratch))

    def test_a_live_rprof_keeps_its_temp_dir(self):
        proc, _ = self.start_stubborn()
        self.rprof_ok("kernels", db=False)
        self.assertEqual(len(self.scratch_dirs(proc.pid)), 1, os.listdir(self.scratch))
        proc.send_signal(signal.SIGTERM)
        self.finish(proc)
        self.assertEqual(self.scratch_dirs(proc.pid), [], "rprof left its temp dir behind")

    def test_its_process_group_is_empty_when_it_exits(self):
        # A harness that waits for rprof's process group (a shell's job, a CI step) is done
        # when rprof is: the watchdog that outlives it for a moment left the group at its start.
        proc = subprocess.Popen(self.command(["run", *MODEL, "/bin/true"]), env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        _, stderr = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, stderr)
        members = []
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat = f.read()
            except (OSError, ValueError):
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            if int(fields[2]) == proc.pid:  # its process group
                members.append((pid, stat[stat.find("(") + 1:stat.rfind(")")], fields[0]))
        self.assertEqual(members, [], "left in rprof's process group after it exited")

    def test_nothing_else_under_the_prefix_is_swept(self):
        others = [os.path.join(self.scratch, n) for n in ("rprof-notes", "rprof-12x.a")]
        for path in others:
            os.mkdir(path)
        self.rprof_ok("kernels", db=False)
        for path in others:
            self.assertTrue(os.path.isdir(path), path)


class Terminal(ProcessTest):
    def test_in_a_terminal_the_program_stays_in_the_foreground_group(self):
        # rprof as a shell runs it: session leader with a controlling terminal whose
        # foreground group it is. The program must stay in that group, so it can read the
        # terminal and Ctrl-C reaches it as under perf stat.
        import fcntl
        import pty
        import termios
        master, slave = pty.openpty()
        self.addCleanup(os.close, master)

        def take_terminal():
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

        report = self.path("report")
        proc = subprocess.Popen(
            self.command(["run", *MODEL, "-o", report, "/bin/sh", "-c",
                          "echo pgid=$(cut -d' ' -f5 /proc/$$/stat)"]),
            env=self.env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
            preexec_fn=take_terminal)
        self.procs.append(proc)
        os.close(slave)
        output = b""
        while b"\n" not in output.split(b"pgid=", 1)[-1]:
            try:
                chunk = os.read(master, 1024)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        self.assertEqual(proc.wait(timeout=30), 0, output)
        self.assertIn(f"pgid={proc.pid}".encode(), output)

    def test_outside_a_terminal_the_program_leads_its_own_group(self):
        r = self.rprof("run", *MODEL, "/bin/sh", "-c", "echo pgid=$(cut -d' ' -f5 /proc/$$/stat)"
                       " pid=$$")
        self.assertEqual(r.returncode, 0, r)
        line = next(l for l in r.stdout.splitlines() if l.startswith("pgid="))
        pgid, pid = (field.split("=")[1] for field in line.split())
        self.assertEqual(pgid, pid, line)


class Executions(ProcessTest):
    def counter_file(self):
        return self.path("executions")

    def executions(self):
        with open(self.counter_file()) as f:
            return len(f.readlines())

    def count_executions(self, *args):
        return self.rprof("run", *args, "/bin/sh", "-c", f"echo x >> {self.counter_file()}")

    def test_auto_executes_a_program_once(self):
        r = self.count_executions()
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(self.executions(), 1)
        _, _, note = self.stored_run()
        if "sim" not in self.scalar("select group_concat(source) from metrics"):
            self.assertIn("executes it a second time, under valgrind; --counters sim asks for "
                          "that", note)

    def test_counters_sim_says_it_executes_twice(self):
        why = sim_unavailable()
        if why:
            self.skipTest(why)
        r = self.count_executions("--counters", "sim")
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(self.executions(), 2)
        self.assertIn("a second time, under valgrind, for the sim counts", r.stderr)
        _, _, note = self.stored_run()
        self.assertIn("executed once more after its timed executions, under valgrind", note)


class Ranges(ProcessTest):
    def test_time_options_out_of_range_are_refused(self):
        program = cli_target("print_bytes")
        for option, value in [("--timeout", "inf"), ("--timeout", "1e10"),
                              ("--timeout", "1e300"), ("--min-time", "inf"),
                              ("--sim-budget", "1e9")]:
            target = ["triad"] if option != "--timeout" else [program]
            r = self.rprof("run", *MODEL, option, value, *target)
            self.assertError(r, 2, f"{option} ", ": out of range, at most 604800 s (a week)")
        self.assertError(self.rprof("run", *MODEL, "--timeout", "nan", program), 2,
                         "--timeout nan: must be 0 or more seconds")
        self.assertError(self.rprof("run", "--flops", "inf", program), 2,
                         "--flops inf: must be a finite number")
        self.assertFalse(os.path.exists(self.db) and self.scalar("select count(*) from runs"))

    def test_a_huge_parameter_is_out_of_range(self):
        for value in ["1e19", "99999999999999999999", "1e400"]:
            r = self.rprof("run", "triad", "-p", f"n={value}")
            self.assertError(r, 2, f"parameter n={value} is out of range [")

    def test_a_program_for_another_architecture_is_a_usage_error(self):
        foreign = self.path("foreign")
        with open("/bin/true", "rb") as f:
            elf = bytearray(f.read())
        elf[18:20] = (183).to_bytes(2, "little")  # EM_AARCH64
        with open(foreign, "wb") as f:
            f.write(elf)
        os.chmod(foreign, 0o755)
        self.assertError(self.rprof("run", foreign), 2, "built for AArch64",
                         "build it for this machine")


class SimFailure(ProcessTest):
    def setUp(self):
        super().setUp()
        # A valgrind that fails the way a broken install does: no output, a message, status 1.
        bin_dir = self.path("bin")
        os.mkdir(bin_dir)
        fake = os.path.join(bin_dir, "valgrind")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'valgrind: broken install' >&2\nexit 1\n")
        os.chmod(fake, 0o755)
        self.env["PATH"] = bin_dir + ":" + self.env.get("PATH", "")
        # The messages name the tool (callgrind, or rprofsim where built): the fallback's here.
        self.env["RPROF_SIMTOOL"] = "none"

    def test_a_chosen_sim_that_fails_keeps_the_measured_run(self):
        r = self.rprof("run", "triad", "-p", "n=1000", "--repeat", "3", "--counters", "sim")
        self.assertExit(r, 3, "valgrind wrote no callgrind output",
                        "run 1 is stored without its sim counts (rprof show 1)")
        run_id, status, note = self.stored_run()
        self.assertEqual(status, "ok")
        self.assertIn("sim counts absent: valgrind wrote no callgrind output", note)
        self.assertIn("time_s", self.metric_names(run_id))

    def test_under_auto_a_failing_sim_is_a_note(self):
        r = self.rprof("run", "triad", "-p", "n=1000", "--repeat", "3")
        self.assertEqual(r.returncode, 0, r)
        _, status, note = self.stored_run()
        self.assertEqual(status, "ok")
        self.assertIn("sim counts absent: valgrind wrote no callgrind output", note)


if __name__ == "__main__":
    if not TARGETS:
        print("RPROF_CLI_TARGETS is not set: run through meson test", file=sys.stderr)
        sys.exit(77)
    rprof_harness.main()
