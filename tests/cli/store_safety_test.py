"""Nothing measured is ever lost (issue 14), on the real binary and real SQLite files.

Before measuring, rprof run checks that the database can take the run: a table dropped outside
rprof, a lock another process holds, a disk too full to open it on, a read-only file: exit 3
before the target runs (the targets here are scripts that leave a file behind when they run).
When the database stops taking runs during the measurement (the disk fills up, a lock is taken),
the run goes whole to a recovery file that `rprof import` stores later. Commands that only read
never create a database.
"""

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import RprofTestCase, Result, file_bytes  # noqa: E402

# A built-in kernel, quickly, counted by its own model only (no valgrind, no PMU needed).
QUICK_TRIAD = ["triad", "-p", "n=10000", "--counters", "model", "--repeat", "3"]

# SQLite's shared-memory index of a WAL database is 32 KiB: the smallest file size limit a
# database can still be opened under. A run's insert writes more than 7 pages to the WAL (the
# runs, samples, metrics and tags tables and their indexes), which does not fit under it.
SHM_BYTES = 32768

# A program that holds the database's write lock in a process of its own (so it outlives the
# program), signals when it has it, and lets go when told to or after a minute.
LOCK_HOLDER = r"""
import os, sqlite3, sys, time
db, held, release, released = sys.argv[1:5]
con = sqlite3.connect(db, isolation_level=None, timeout=30)
con.execute("BEGIN IMMEDIATE")
open(held, "w").close()
deadline = time.time() + 60
while not os.path.exists(release) and time.time() < deadline:
    time.sleep(0.02)
con.execute("ROLLBACK")
con.close()
open(released, "w").close()
"""


def limited_file_size(limit):
    """A preexec_fn: files this process writes cannot grow past `limit` bytes, and a write
    beyond it fails with EFBIG (SIGXFSZ ignored) as on a full disk."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


class StoreTestCase(RprofTestCase):
    def setUp(self):
        super().setUp()
        self.state = self.path("state")
        self.env["XDG_STATE_HOME"] = self.state
        self.recovered = os.path.join(self.state, "rprof", "recovered")
        self.marker = self.path("target-ran")

    def target_script(self):
        """`rprof run` arguments for a program that leaves self.marker behind when it runs."""
        script = self.path("target.sh")
        with open(script, "w") as f:
            f.write(f"touch '{self.marker}'\n")
        os.chmod(script, 0o755)
        return ["--counters", "model", "/bin/sh", script]

    def run_with(self, args, preexec_fn=None, env=None):
        argv = self.command(args)
        proc = subprocess.run(argv, env=env or self.env, capture_output=True, text=True,
                              timeout=120, preexec_fn=preexec_fn)
        return Result(list(args), proc.returncode, proc.stdout, proc.stderr)

    def stored_runs(self):
        return self.scalar("select count(*) from runs")

    def seed(self, runs=3):
        for _ in range(runs):
            self.rprof_ok("run", *QUICK_TRIAD, "--quiet")

    def recovery_files(self):
        if not os.path.isdir(self.recovered):
            return []
        return sorted(os.path.join(self.recovered, f) for f in os.listdir(self.recovered))

    def assertNothingRan(self):
        self.assertFalse(os.path.exists(self.marker), "the target ran")
        self.assertEqual(self.recovery_files(), [])


class CheckedBeforeMeasuring(StoreTestCase):
    def test_a_dropped_table_stops_the_run_before_the_target_runs(self):
        self.seed(1)
        con = sqlite3.connect(self.db)
        con.execute("DROP TABLE metrics")
        con.commit()
        con.close()
        r = self.rprof("run", *self.target_script())
        self.assertError(r, 3, f"database {self.db}: table metrics is missing: the file was "
                         "changed outside rprof", "restore the file from a backup")
        self.assertNothingRan()
        self.assertEqual(self.stored_runs(), 1)
        # Readers say the same, rather than "no such table".
        self.assertError(self.rprof("show", "1"), 3, "table metrics is missing")

    def test_a_lock_held_stops_the_run_before_the_target_runs(self):
        self.seed(1)
        holder = sqlite3.connect(self.db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        env = dict(self.env, RPROF_BUSY_TIMEOUT_MS="200")
        try:
            started = time.monotonic()
            r = self.rprof("run", *self.target_script(), env=env)
            waited = time.monotonic() - started
            # Readers do not need the lock.
            self.rprof_ok("history", env=env)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        self.assertError(r, 3, f"database {self.db}: locked by another process", "busy timeout "
                         "(200 ms)", f"fuser {self.db}", "RPROF_BUSY_TIMEOUT_MS")
        self.assertLess(waited, 30, "it waited the default busy timeout, not the one set")
        self.assertNothingRan()
        # A program's report goes to stderr (as perf stat's): exit 0 is the success.
        r = self.rprof("run", *self.target_script(), env=env)
        self.assertEqual(r.returncode, 0, r)
        self.assertTrue(os.path.exists(self.marker))

    def test_a_disk_too_full_to_open_the_database_stops_the_run_before_the_target_runs(self):
        self.seed(1)
        r = self.run_with(["run", *self.target_script()],
                          preexec_fn=limited_file_size(SHM_BYTES // 2))
        self.assertError(r, 3, f"database {self.db}: the disk could not be written or read, most "
                         "often because it is full (SQLite: disk I/O error", "check its free space")
        self.assertNothingRan()

    def test_a_read_only_database_stops_the_run_before_the_target_runs(self):
        self.seed(1)
        os.chmod(self.db, 0o444)
        self.addCleanup(os.chmod, self.db, 0o644)
        as_user = {}
        if os.geteuid() == 0:
            # Permission bits do not bind root: run rprof as nobody, who may write the directory
            # (the -wal and -shm files) but not the database.
            os.chmod(self.tmp, 0o777)
            as_user = {"user": 65534, "group": 65534, "extra_groups": []}
        argv = self.command(["run", *self.target_script()])
        try:
            proc = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=60,
                                  **as_user)
        except (PermissionError, OSError) as e:
            self.skipTest(f"running as root and cannot run rprof as nobody ({e})")
        r = Result(argv[1:], proc.returncode, proc.stdout, proc.stderr)
        if as_user and r.returncode == 126:
            self.skipTest("running as root and nobody cannot execute rprof here")
        self.assertError(r, 3, f"database {self.db}: this user cannot write it")
        self.assertNothingRan()


class RecoveredWhenStoringFails(StoreTestCase):
    def assertSavedAndImportable(self, r, runs_before):
        """r failed to store its run: the run is in one recovery file, the message says so, and
        `rprof import` stores it, once."""
        self.assertError(r, 3, "the run was measured but not stored, and is NOT lost: it is "
                         f"saved whole in {self.recovered}/run-", f"rprof --db {self.db} import ")
        files = self.recovery_files()
        self.assertEqual(len(files), 1, files)
        self.assertIn(files[0], r.stderr)
        self.assertEqual(self.stored_runs(), runs_before)
        with open(files[0]) as f:
            saved = json.load(f)
        self.assertIsNone(saved["run_id"])
        self.assertRegex(saved["uid"], r"^[0-9a-f]{32}$")
        self.assertIn(saved["uid"], os.path.basename(files[0]))

        first = self.rprof_ok("import", files[0])
        new_id = runs_before + 1
        self.assertEqual(first.stdout, f"{files[0]}: stored as run {new_id}\n"
                         f"{files[0]}: stored; this recovery file can be deleted now\n")
        self.assertTrue(os.path.exists(files[0]), "the recovery file is kept")
        shown = json.loads(self.rprof_ok("show", str(new_id), "--format", "json").stdout)
        for key in ("uid", "target", "params", "status", "started_at", "ended_at", "samples_s",
                    "tags", "metrics", "trust", "machine", "sources", "command"):
            self.assertEqual(shown[key], saved[key], key)
        again = self.rprof_ok("import", files[0])
        self.assertIn(f"{files[0]}: already stored as run {new_id}\n", again.stdout)
        self.assertEqual(self.stored_runs(), new_id)
        return shown

    def test_a_disk_that_fills_up_during_the_run(self):
        # The database is grown by earlier runs, so opening, checking and reading it need no
        # byte beyond the limit; the run's insert does, and fails as on a full disk.
        self.seed(3)
        r = self.run_with(["run", *QUICK_TRIAD, "--tag", "lab=14"],
                          preexec_fn=limited_file_size(SHM_BYTES))
        self.assertIn("the disk could not be written or read", r.stderr, r)
        shown = self.assertSavedAndImportable(r, 3)
        self.assertEqual(shown["tags"], {"lab": "14"})
        self.assertEqual(shown["params"], {"n": 10000})
        self.assertEqual(shown["metrics"]["flops"]["model"]["value"], 20000)

    def test_a_lock_taken_during_the_run(self):
        # The target itself starts a process that takes the write lock and keeps it past the
        # busy timeout, after the open-time check passed and before the insert.
        self.seed(1)
        held, release, released = (self.path(n) for n in ("held", "release", "released"))
        program = self.path("takes_the_lock.py")
        with open(program, "w") as f:
            f.write(f"#!{sys.executable}\n"
                    "import os, subprocess, sys, time\n"
                    f"subprocess.Popen([sys.executable, '-c', {LOCK_HOLDER!r}, {self.db!r}, "
                    f"{held!r}, {release!r}, {released!r}], stdin=subprocess.DEVNULL, "
                    "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, "
                    "start_new_session=True)\n"
                    f"while not os.path.exists({held!r}):\n"
                    "    time.sleep(0.02)\n")
        os.chmod(program, 0o755)
        env = dict(self.env, RPROF_BUSY_TIMEOUT_MS="300")
        try:
            r = self.rprof("run", "--counters", "model", sys.executable, program, env=env)
        finally:
            open(release, "w").close()
            deadline = time.monotonic() + 60
            while not os.path.exists(released) and time.monotonic() < deadline:
                time.sleep(0.02)
        self.assertIn("locked by another process", r.stderr, r)
        shown = self.assertSavedAndImportable(r, 1)
        self.assertEqual(shown["target_kind"], "executable")


class ReadersCreateNothing(StoreTestCase):
    READERS = [["history"], ["show", "1"], ["compare", "1", "2"], ["plot", "--last", "1", "-o",
               "PLOT.svg"], ["machine", "show"], ["machine", "list"], ["calibrate", "--show"],
               ["query", "select 1"]]

    def test_no_reader_creates_a_database(self):
        for where in ("typo.db", "no/such/dir/typo.db"):
            typo = self.path(where)
            for args in self.READERS:
                args = [a.replace("PLOT", self.path("plot")) for a in args]
                with self.subTest(where=where, command=args[0]):
                    r = self.rprof(*args, db=typo)
                    self.assertError(r, 3, f"no database at {typo}: ", "check the path "
                                     "(--db PATH or RPROF_DB)")
                    self.assertFalse(os.path.exists(typo), "a reader created the database")
            self.rprof("doctor", db=typo)
            self.assertFalse(os.path.exists(typo), "doctor created the database")
        self.assertEqual(os.listdir(self.tmp), [])

    def test_through_the_environment_too(self):
        typo = self.path("elsewhere.db")
        r = self.rprof("history", db=False, env=dict(self.env, RPROF_DB=typo))
        self.assertError(r, 3, f"no database at {typo}: nothing is stored there yet")
        self.assertFalse(os.path.exists(typo))

    def test_readers_leave_a_current_database_as_it_was(self):
        self.seed(2)
        before = file_bytes(self.db)
        for args in (["history"], ["show", "1"], ["compare", "1", "2"], ["machine", "list"]):
            self.rprof_ok(*args)
        self.assertEqual(file_bytes(self.db), before)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["runs.db"], "a -wal or -shm left behind")
        # query's connection is read-only, which may leave -wal and -shm, never change the file.
        self.rprof_ok("query", "select count(*) from runs")
        self.assertEqual(file_bytes(self.db), before)

    def test_readers_bring_an_older_database_up_to_date(self):
        rprof_harness.make_database(self.db, before="_run_uid")
        con = sqlite3.connect(self.db)
        con.executescript(
            "INSERT INTO machines (id, fingerprint, cpu_model, cores, caches, kernel, hostname,"
            " first_seen) VALUES (1, 'fp', 'cpu', 2, '', 'k', 'h', '2026-01-01T00:00:00Z');"
            "INSERT INTO runs (id, machine_id, target_kind, target, params, status, sources,"
            " repetitions, calls_per_rep, started_at, ended_at, rprof_version) VALUES"
            " (1, 1, 'builtin', 'triad', '{\"n\": 10}', 'ok', 'clock', 1, 1,"
            " '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z', '0.0.9');"
            "INSERT INTO samples (run_id, rep, time_s) VALUES (1, 0, 0.5);"
            "INSERT INTO metrics (run_id, region, name, source, value, unit) VALUES"
            " (1, '', 'time_s', 'clock', 0.5, 's');")
        con.close()
        runs = json.loads(self.rprof_ok("history", "--format", "json").stdout)
        self.assertEqual([r["run_id"] for r in runs], [1])
        self.assertRegex(runs[0]["uid"], r"^[0-9a-f]{32}$")
        self.assertGreater(self.scalar("pragma user_version"), 8)


if __name__ == "__main__":
    rprof_harness.main()
