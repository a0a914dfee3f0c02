"""What rprof writes, end to end: a report that cannot reach standard output fails with exit 3
and its reason (and, for a run, the id it is stored under); a closed standard output never lets
the report land in the database; JSON is valid UTF-8 whatever bytes a program's path or
arguments hold; the text for people shows control characters escaped."""

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from fixtures import PMU  # noqa: E402
from rprof_harness import FAST_RUN, RprofTestCase  # noqa: E402

FFFD = "\ufffd"


class OutputTestCase(RprofTestCase):
    def rprof_raw(self, *args, stdout=subprocess.PIPE, close_stdout=False, db=True):
        """Runs rprof with bytes arguments allowed; stdout a file object, or closed. Returns the
        Result with stdout as bytes ("" when not captured) and stderr as text."""
        argv = [os.fsencode(a) for a in self.command(list(args), db)]
        preexec = (lambda: os.close(1)) if close_stdout else None
        proc = subprocess.run(argv, env=self.env, stdout=None if close_stdout else stdout,
                              stderr=subprocess.PIPE, preexec_fn=preexec, timeout=120)
        return rprof_harness.Result([repr(a) for a in args], proc.returncode,
                                    "" if proc.stdout is None else proc.stdout,
                                    proc.stderr.decode("utf-8"))

    def strict_json(self, data):
        """Parses bytes the way a strict consumer does: UTF-8 first, then JSON."""
        try:
            return json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as e:
            self.fail(f"the JSON is not UTF-8 ({e}): {data[:400]!r}")


class WriteErrors(OutputTestCase):
    def test_run_to_a_full_device_names_the_stored_run(self):
        with open("/dev/full", "wb") as full:
            r = self.rprof_raw("run", "triad", *FAST_RUN, "--quiet", stdout=full)
        self.assertError(r, 3, "cannot write the report to standard output: "
                         "No space left on device; run 1 is stored (rprof show 1)")
        # Stored before it was printed, and whole.
        self.assertEqual(self.scalar("select count(*) from runs"), 1)
        self.assertEqual(json.loads(self.rprof_ok("show", "1", "--format", "json").stdout)
                         ["run_id"], 1)

    def test_run_report_to_a_closed_stdout(self):
        for args in (["--quiet"], ["--format", "json"], []):
            with self.subTest(args=args):
                r = self.rprof_raw("run", "triad", *FAST_RUN, *args, close_stdout=True)
                self.assertError(r, 3, "cannot write the report to standard output: "
                                 "Bad file descriptor; run ", " is stored (rprof show ")

    def test_the_database_is_intact_after_a_closed_stdout_run(self):
        # A closed stdout's number, 1, must not go to a file rprof opens: the report would be
        # written into it. The program run here (rprof's child) shows what rprof's fd 1 is:
        # /dev/null, opened read-only. A program's report goes to stderr, which is open.
        self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        r = self.rprof_raw("run", *PMU, "/bin/sh", "-c", "readlink /proc/$PPID/fd/1 >&2",
                           close_stdout=True)
        self.assertExit(r, 0)
        self.assertTrue(r.stderr.startswith("/dev/null\nrun 2  /bin/sh -c "), r)
        self.assertNotIn(self.db, r.stderr)
        runs = json.loads(self.rprof_ok("history", "--format", "json").stdout)
        self.assertEqual([run["run_id"] for run in runs], [2, 1])
        self.assertEqual(self.scalar("pragma integrity_check"), "ok")

    def test_a_program_report_to_a_full_standard_error_fails(self):
        # The error cannot be read where it is written; the exit status and the store say it.
        argv = self.command(["run", *PMU, "/bin/true"])
        with open("/dev/full", "wb") as full:
            proc = subprocess.run(argv, env=self.env, stdout=subprocess.PIPE, stderr=full,
                                  timeout=120)
        self.assertEqual((proc.returncode, proc.stdout), (3, b""))
        self.assertEqual(self.scalar("select count(*) from runs"), 1, "stored before printed")

    def test_every_command_reports_a_failed_write(self):
        self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        for args in (["history"], ["show", "1", "--format", "json"], ["query", "select 1"],
                     ["kernels"], ["--help"], ["--version"], ["help", "run"]):
            with self.subTest(args=args):
                with open("/dev/full", "wb") as full:
                    r = self.rprof_raw(*args, stdout=full)
                self.assertError(r, 3, "cannot write the report to standard output: "
                                 "No space left on device; check where standard output goes")
                r = self.rprof_raw(*args, close_stdout=True)
                self.assertError(r, 3, "cannot write the report to standard output: "
                                 "Bad file descriptor")

    def test_a_command_that_failed_keeps_its_own_error(self):
        self.rprof("run", "triad", "-p", "n=1000", "--repeat", "3", "--counters", "model", "-q")
        with open("/dev/full", "wb") as full:
            r = self.rprof_raw("show", "99", stdout=full)
        self.assertEqual(r.returncode, 2, r)
        self.assertNotIn("standard output", r.stderr)


class JsonIsUtf8(OutputTestCase):
    def test_program_path_and_arguments_that_are_not_utf8(self):
        # A copy, not a link: the target stored is the file's canonical path, its own name.
        prog = os.path.join(os.fsencode(self.tmp), b"prog\xff")
        shutil.copy("/bin/true", prog)
        args = ["run", *PMU, "--format", "json", prog, b"caf\xe9", b"\xc0\xaf", "ok \u00b5s"]
        # A program's report is on stderr, which rprof_raw has read as strict UTF-8.
        run = self.strict_json(self.rprof_raw(*args).stderr.encode("utf-8"))
        self.assertEqual(run["target"], os.path.join(os.path.realpath(self.tmp), "prog" + FFFD))
        self.assertEqual(run["command"][0], os.path.join(self.tmp, "prog" + FFFD))
        self.assertEqual(run["command"][1:], ["caf" + FFFD, FFFD + FFFD, "ok \u00b5s"])
        # Read back from the store, in every JSON the run appears in.
        self.strict_json(self.rprof_raw("show", "1", "--format", "json").stdout)
        self.strict_json(self.rprof_raw("history", "--format", "json").stdout)
        rows = self.strict_json(self.rprof_raw("query", "select target, command from runs",
                                               "--format", "json").stdout)
        self.assertEqual(rows[0]["target"],
                         os.path.join(os.path.realpath(self.tmp), "prog" + FFFD))

    def test_query_results_that_are_not_utf8(self):
        self.rprof_ok("run", "triad", *FAST_RUN, "-q")
        out = self.rprof_raw("query", "select cast(x'41ff42' as text) t, x'e282' b, "
                             "char(27, 127) c", "--format", "json").stdout
        self.assertEqual(self.strict_json(out), [{"t": "A" + FFFD + "B", "b": FFFD,
                                                  "c": "\x1b\x7f"}])
        self.assertNotIn(b"\x1b", out)  # escaped, as \u001b


class TextEscapesControlCharacters(OutputTestCase):
    def test_program_arguments_in_run_show_and_history(self):
        self.rprof_raw("run", *PMU, "/bin/true", "\x1b[31mred", "two\nlines", b"\xfe")
        for args in (["show", "1"], ["history"]):
            with self.subTest(command=args[0]):
                out = self.rprof_raw(*args).stdout
                self.assertNotIn(b"\x1b", out)
                text = out.decode("utf-8")
                self.assertIn("/bin/true \\x1b[31mred two\\nlines " + FFFD, text)
        history = self.rprof_raw("history").stdout.decode().splitlines()
        self.assertEqual(len(history), 2, history)  # the header and one line for the run

    def test_tags_in_a_query_table(self):
        self.rprof_ok("run", "triad", *FAST_RUN, "-q", "--tag", "k=\x1b[2Jwiped\ttab\r")
        out = self.rprof_raw("query", "select key, value from tags").stdout
        self.assertEqual(out.decode().splitlines(), ["key  value", "k    \\x1b[2Jwiped\\ttab\\r"])
        # Data formats keep the value exactly.
        rows = self.strict_json(self.rprof_raw("query", "select value from tags",
                                               "--format", "json").stdout)
        self.assertEqual(rows, [{"value": "\x1b[2Jwiped\ttab\r"}])


if __name__ == "__main__":
    rprof_harness.main()
