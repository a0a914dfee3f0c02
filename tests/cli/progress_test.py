"""Progress of long work is drawn on standard error when it is a terminal, in place and erased
at the end, and never in a pipe or with --quiet: the sim step's wait (valgrind running a
kernel), against its estimate."""

import json
import os
import pty
import select
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import RprofTestCase  # noqa: E402

# A sim step that takes well over the half second before progress is first drawn.
LONG_SIM = ["run", "triad", "-p", "n=5000000", "--repeat", "1", "--counters", "sim"]


class Progress(RprofTestCase):
    def setUp(self):
        super().setUp()
        if not shutil.which("valgrind"):
            self.skipTest("valgrind is not installed: no sim step to wait on")
        doctor = json.loads(self.rprof("doctor", "--format", "json", db=False).stdout)
        sim = next(c for c in doctor["checks"] if c["name"] == "sim")
        if sim["status"] != "ok":
            self.skipTest(f"no sim source here: {sim['detail']}")

    def run_on_a_terminal(self, *args):
        """rprof ARGS with stderr a pty: (exit status, stdout, what the terminal received)."""
        master, slave = pty.openpty()
        proc = subprocess.Popen(self.command(args), env=self.env, stdout=subprocess.PIPE,
                                stderr=slave)
        os.close(slave)
        received = b""
        stdout = b""
        try:
            while True:
                ready, _, _ = select.select([master, proc.stdout], [], [], 1)
                if master in ready:
                    try:
                        chunk = os.read(master, 4096)
                    except OSError:  # the slave side closed: rprof has exited
                        chunk = b""
                    received += chunk
                    if not chunk and proc.poll() is not None:
                        break
                if proc.stdout in ready:
                    stdout += os.read(proc.stdout.fileno(), 65536)
                if not ready and proc.poll() is not None:
                    break
            stdout += proc.stdout.read()
        finally:
            os.close(master)
            proc.stdout.close()
        return proc.wait(timeout=120), stdout.decode(), received.decode()

    def test_a_terminal_sees_the_sim_step_progress(self):
        code, stdout, terminal = self.run_on_a_terminal(*LONG_SIM)
        self.assertEqual(code, 0, terminal)
        self.assertIn("sim: triad under valgrind, ", terminal)
        self.assertRegex(terminal, r"\d\.\d s of about \d+(\.\d)? s")
        self.assertTrue(terminal.endswith("\r\x1b[K"), "erased when the wait ends: "
                        f"{terminal!r}")
        self.assertIn("run 1  triad  n=5000000", stdout, "the report is on stdout, whole")

    def test_a_pipe_sees_none(self):
        r = self.rprof(*LONG_SIM)
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(r.stderr, "", "no progress, no escape sequence, in a pipe")

    def test_quiet_draws_none_even_on_a_terminal(self):
        code, stdout, terminal = self.run_on_a_terminal(*LONG_SIM, "--quiet")
        self.assertEqual(code, 0, terminal)
        self.assertEqual((stdout, terminal), ("1\n", ""))


if __name__ == "__main__":
    rprof_harness.main()
