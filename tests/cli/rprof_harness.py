"""Shared helpers for the end-to-end tests: run the real rprof binary on a temporary database and
read back what it stored, with nothing but the Python standard library.

Each test script is started by meson as `python3 SCRIPT.py PATH/TO/rprof` and calls main().
"""

import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

# Set by main() from argv[1].
RPROF = None

# The migrations rprof compiles in (schema/NNN_name.sql), for databases made without rprof.
SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema")

# In a sanitizer build (scripts/test --sanitize) meson sets RPROF_SANITIZED=1. What valgrind runs
# is built without ASan there (rprof-sim-runner, the test programs), except what links rprof's
# own code for the program, like librprof-marker: a test that has valgrind run such a program
# skips with this reason.
SANITIZED = os.environ.get("RPROF_SANITIZED") == "1"
SANITIZED_SKIP = "valgrind cannot run ASan binaries"
# A build without elfutils (tests/meson.build sets it): no function sampling, no symbols from
# separate debug files, no unwind tables.
WITHOUT_ELFUTILS = os.environ.get("RPROF_WITHOUT_ELFUTILS") == "1"
WITHOUT_ELFUTILS_SKIP = ("rprof was built without elfutils (libdw-dev): no function sampling, "
                         "debug files or unwind tables")

# A quick triad run: well under a second, even on a loaded two-core machine. pmu counters only: the sim source (valgrind) has its own suite, and would
# add a second or so to every run here.
FAST_RUN = ["-p", "n=1000", "--repeat", "3", "--counters", "pmu"]


class Result:
    """What one rprof invocation did."""

    def __init__(self, args, returncode, stdout, stderr):
        self.args = args
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self):
        return (f"rprof {' '.join(self.args)}\n  exit {self.returncode}\n"
                f"  stdout: {self.stdout[-2000:]!r}\n  stderr: {self.stderr[-2000:]!r}")


def file_bytes(path):
    with open(path, "rb") as f:
        return f.read()


class RprofTestCase(unittest.TestCase):
    """A test with its own temporary directory, database path and environment.

    HOME, XDG_DATA_HOME and RPROF_DB point into the temporary directory, so a test that forgets
    --db can never touch the user's real database.
    """

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rprof-cli-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.db = os.path.join(self.tmp, "runs.db")
        self.env = dict(os.environ)
        self.env.pop("RPROF_DB", None)
        self.env["HOME"] = os.path.join(self.tmp, "home")
        self.env["XDG_DATA_HOME"] = os.path.join(self.tmp, "xdg")
        self.env["LC_ALL"] = "C"
        # The tests that read text tables read one row a line, as wide as it is; the text fitted
        # to a terminal's width has tests of its own (width_test.py), which set COLUMNS.
        self.env["COLUMNS"] = "0"

    def path(self, name):
        return os.path.join(self.tmp, name)

    def command(self, args, db=True):
        """The argv for rprof ARGS; db=True adds --db with this test's database, a string another
        path, False none."""
        argv = [RPROF]
        if db is True:
            argv += ["--db", self.db]
        elif db:
            argv += ["--db", db]
        return argv + list(args)

    def rprof(self, *args, db=True, env=None, timeout=120):
        """Runs rprof to completion."""
        proc = subprocess.run(self.command(args, db), env=env or self.env, capture_output=True,
                              text=True, timeout=timeout)
        return Result(list(args), proc.returncode, proc.stdout, proc.stderr)

    def rprof_in(self, cwd, *args, db=True, env=None, timeout=120):
        """rprof ARGS started in the folder cwd (relative program paths are the user's); db as
        command() takes it."""
        proc = subprocess.run(self.command(args, db), cwd=cwd, env=env or self.env,
                              capture_output=True, timeout=timeout)
        return Result(list(args), proc.returncode, proc.stdout.decode(), proc.stderr.decode())

    def rprof_ok(self, *args, **kwargs):
        """Runs rprof and asserts it exited 0 with nothing on stderr."""
        result = self.rprof(*args, **kwargs)
        self.assertEqual(result.returncode, 0, result)
        self.assertEqual(result.stderr, "", result)
        return result

    def rprof_program_ok(self, *args, **kwargs):
        """Runs rprof on a program and asserts it exited 0 without an error. The program's
        output is on stdout, rprof's report (or --quiet's run id) on stderr, as perf stat's:
        the program's standard output stays its own."""
        result = self.rprof(*args, **kwargs)
        self.assertEqual(result.returncode, 0, result)
        self.assertNotIn("rprof: error", result.stderr, result)
        return result

    def assertExit(self, result, code, *stderr_parts):
        """Asserts the exit status and that each part appears in stderr."""
        self.assertEqual(result.returncode, code, result)
        for part in stderr_parts:
            self.assertIn(part, result.stderr, result)

    def assertError(self, result, code, *stderr_parts):
        """Asserts a failure printed once, with the one prefix, and nothing on stdout."""
        self.assertExit(result, code, *stderr_parts)
        self.assertEqual(result.stderr.count("rprof: error: "), 1, result)
        self.assertEqual(result.stdout, "", result)

    def run_json(self, *args, **kwargs):
        """`rprof run ARGS --format json`, asserted successful, parsed."""
        result = self.rprof_ok("run", *args, "--format", "json", **kwargs)
        return json.loads(result.stdout)

    def query(self, sql, params=(), db=None):
        """Rows from the database through Python's sqlite3, independent of rprof."""
        con = sqlite3.connect(f"file:{db or self.db}?mode=ro", uri=True)
        try:
            return con.execute(sql, params).fetchall()
        finally:
            con.close()

    def scalar(self, sql, params=(), db=None):
        return self.query(sql, params, db)[0][0]

    def run_row(self, run_id=None):
        """A stored run as a dict of its columns (the newest one by default)."""
        rows = self.query("select * from runs where id = coalesce(?, (select max(id) from "
                          "runs))", (run_id,))
        self.assertEqual(len(rows), 1, "no run stored" if run_id is None
                         else f"no run {run_id} stored")
        names = [r[1] for r in self.query("pragma table_info(runs)")]
        return dict(zip(names, rows[0]))

    def runs_stored(self):
        """How many runs the test's database holds (0 when there is none)."""
        return self.scalar("select count(*) from runs") if os.path.exists(self.db) else 0

    def kernel_names(self):
        result = self.rprof_ok("kernels", "--format", "json", db=False)
        return [k["name"] for k in json.loads(result.stdout)]


def make_database(path, before=None):
    """Creates an rprof database at path as rprof's own migrations make it, with Python's sqlite3
    and no rprof: the current schema, or with before="_run_uid" the schema as it was before the
    migration named *_run_uid.sql (found by name: numbers change when branches merge). Readers
    never create a database, so a test that needs an empty one makes it here."""
    migrations = sorted(glob.glob(os.path.join(SCHEMA_DIR, "[0-9][0-9][0-9]_*.sql")))
    if not migrations:
        raise RuntimeError(f"no migrations under {SCHEMA_DIR}")
    con = sqlite3.connect(path, isolation_level=None)
    try:
        for migration in migrations:
            name = os.path.basename(migration)
            if before and before in name:
                break
            with open(migration) as f:
                con.executescript("BEGIN;" + f.read() + f";PRAGMA user_version = {int(name[:3])};"
                                  "COMMIT;")
        else:
            if before:
                raise RuntimeError(f"no migration named *{before}*")
        con.execute("PRAGMA journal_mode = WAL")
    finally:
        con.close()


def copy_database(source, destination):
    """A consistent copy of an SQLite database through SQLite's backup API, whatever its journal
    mode: a class seeds one database, and each test works on its own copy."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(destination)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def table_rows(text):
    """The rows of the metric table `rprof run` and `rprof show` print, as
    {(metric, source): (value, unit)}; value is the text shown ("-" when absent). The spread
    column ("±0.52%"), where the table has one, is passed over."""
    rows = {}
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if
                     [w for w in line.split() if w != "spread"][:4] ==
                     ["metric", "value", "unit", "source"])
    except StopIteration:
        return rows
    for line in lines[start + 1:]:
        parts = line.split()
        if len(parts) > 3 and parts[3].startswith("\u00b1"):
            del parts[3]
        if len(parts) < 4:
            break
        rows[(parts[0], parts[3])] = (parts[1], parts[2])
    return rows


def evaluate_formula(formula, params):
    """Evaluates a kernel's model formula ("2*n*n*n") for the given parameters. Formulas hold
    only numbers, parameter names, + - * / and parentheses."""
    allowed = set("0123456789.+-*/() eE_") | set("".join(params))
    if not set(formula) <= allowed:
        raise ValueError(f"unexpected character in formula {formula!r}")
    return float(eval(formula, {"__builtins__": {}}, dict(params)))  # noqa: S307 (checked above)


def main():
    global RPROF
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} PATH/TO/rprof [unittest options]")
    RPROF = os.path.abspath(sys.argv.pop(1))
    if not os.access(RPROF, os.X_OK):
        sys.exit(f"{RPROF}: not an executable")
    unittest.main(module="__main__", verbosity=2)
