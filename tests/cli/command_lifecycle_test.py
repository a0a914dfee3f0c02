"""What a command does with the runs database is the command table's to say, and main's to act
on (issue 40): `[needs: ...]` in `rprof --help` is what happens. A command that reads never
creates the file; a command that writes creates it, and says so when it cannot write; --help and
usage errors never touch the database at all, whatever --db names; query and machine list read a
file this user may not write.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rprof_harness  # noqa: E402
from rprof_harness import RprofTestCase, Result  # noqa: E402

# Each command that opens the database, with arguments that get it past its own parsing to the
# store (OUT: a file of the test's). Checked against the help's labels, so a new command that
# opens the database needs a line here.
READERS = {
    "history": [],
    "show": ["1"],
    "compare": ["1", "2"],
    "plot": ["--last", "1", "-o", "OUT.svg"],
    "report": ["-o", "OUT.html"],
    "job": [],
    "query": ["select 1"],
    "machine": ["list"],
}
# The store the label promises, by its words in the help.
READ_LABELS = ("existing database", "database, read-only")
WRITE_LABEL = "writable database"


class CommandLifecycle(RprofTestCase):
    def needs_labels(self):
        """{command: its "[needs: ...]" text} from `rprof --help` ("" for none)."""
        r = self.rprof_ok("--help", db=False)
        commands = r.stdout.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
        labels = {}
        for line in commands.splitlines():
            m = re.match(r"  (\w+) +(.*)$", line)
            if m:
                needs = re.search(r"\[needs: ([^\]]*)\]", m.group(2))
                labels[m.group(1)] = needs.group(1) if needs else ""
        self.assertIn("run", labels, r.stdout)
        return labels

    def args_of(self, command):
        return [a.replace("OUT", self.path("out")) for a in READERS[command]]

    def test_the_help_labels_say_what_each_command_does(self):
        labels = self.needs_labels()
        self.assertEqual(labels["kernels"], "", labels)
        self.assertEqual(labels["doctor"], "", labels)
        self.assertEqual(labels["query"], "database, read-only", labels)
        self.assertEqual(labels["history"], "existing database", labels)
        self.assertEqual(labels["run"], WRITE_LABEL, labels)
        # Where subcommands or a mode differ, the label says each.
        self.assertEqual(labels["machine"], "existing database; measure: writable database")
        self.assertEqual(labels["calibrate"], "writable database; --show: existing database")
        readers = {c for c, label in labels.items() if label.startswith(READ_LABELS)}
        self.assertEqual(readers, set(READERS), "READERS is the help's readers")

    def test_readers_on_a_missing_database_create_nothing_and_exit_3(self):
        missing = self.path("missing.db")
        for command in READERS:
            with self.subTest(command=command):
                r = self.rprof(command, *self.args_of(command), db=missing)
                self.assertError(r, 3, f"no database at {missing}: nothing is stored there yet")
                self.assertFalse(os.path.exists(missing), f"{command} created the database")
        r = self.rprof("calibrate", "--show", db=missing)
        self.assertError(r, 3, f"no database at {missing}")
        self.assertFalse(os.path.exists(missing), "calibrate --show created the database")
        self.assertEqual(os.listdir(self.tmp), [])

    def test_help_and_usage_errors_never_touch_the_database(self):
        # A directory is no database: any command that opened it would fail with exit 3.
        folder = self.path("a-folder")
        os.mkdir(folder)
        for command in self.needs_labels():
            with self.subTest(command=command):
                r = self.rprof(command, "--help", db=folder)
                self.assertEqual(r.returncode, 0, r)
                self.assertNotIn("rprof: error", r.stderr, r)
                r = self.rprof("help", command, db=folder)
                self.assertEqual(r.returncode, 0, r)
        for sub in ("measure", "show", "list"):
            self.assertEqual(self.rprof("help", "machine", sub, db=folder).returncode, 0)
        usage_errors = [["history", "--no-such-option"], ["query"], ["import"], ["merge"],
                        ["machine", "measure", "--quick", "--full"], ["compare", "1"],
                        ["calibrate", "--tolerance", "0"]]
        missing = self.path("missing.db")
        for args in usage_errors:
            with self.subTest(args=args):
                self.assertEqual(self.rprof(*args, db=folder).returncode, 2)
                self.assertEqual(self.rprof(*args, db=missing).returncode, 2)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a-folder"])
        self.assertEqual(os.listdir(folder), [])

    def test_a_writer_creates_the_database(self):
        source = self.path("node1.db")
        rprof_harness.make_database(source)
        r = self.rprof("merge", source)
        self.assertEqual(r.returncode, 0, r)
        self.assertTrue(os.path.exists(self.db), "merge did not create the database")
        self.rprof_ok("machine", "list")

    def as_other_user(self, *args):
        """rprof ARGS as a user who may not write this test's database (root ignores the file's
        mode bits: nobody then, who may write the directory, for SQLite's -shm file)."""
        os.chmod(self.db, 0o444)
        self.addCleanup(os.chmod, self.db, 0o644)
        as_user = {}
        if os.geteuid() == 0:
            os.chmod(self.tmp, 0o777)
            as_user = {"user": 65534, "group": 65534, "extra_groups": []}
        argv = self.command(args)
        try:
            proc = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=60,
                                  **as_user)
        except (PermissionError, OSError) as e:
            self.skipTest(f"running as root and cannot run rprof as nobody ({e})")
        if as_user and proc.returncode == 126:
            self.skipTest("running as root and nobody cannot execute rprof here")
        return Result(argv[1:], proc.returncode, proc.stdout, proc.stderr)

    def test_readers_read_a_database_they_cannot_write(self):
        rprof_harness.make_database(self.db)
        r = self.as_other_user("machine", "list", "--format", "json")
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual(r.stderr, "", r)
        r = self.as_other_user("query", "select count(*) as n from runs", "--format", "csv")
        self.assertEqual(r.returncode, 0, r)
        self.assertIn("0", r.stdout, r)

    def test_a_writer_on_a_database_it_cannot_write_says_so(self):
        rprof_harness.make_database(self.db)
        source = self.path("node1.db")
        rprof_harness.make_database(source)
        os.chmod(source, 0o644)
        r = self.as_other_user("merge", source)
        self.assertError(r, 3, f"database {self.db}: this user cannot write it")


if __name__ == "__main__":
    rprof_harness.main()
