"""Bad input to the real rprof binary: each mistake gets its exit status (2 usage, 3 environment)
and one message that names the problem, and nothing is stored or changed on the way."""

import json
import os
import re
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import FAST_RUN, RprofTestCase, file_bytes  # noqa: E402

BUILTIN_KERNELS = ["copy", "scale", "add", "triad", "dot", "dot-fp32", "matmul-naive",
                   "matmul-naive-fp32", "matmul-ikj", "matmul-ikj-fp32"]


class KernelAndParameterErrors(RprofTestCase):
    def test_unknown_kernel_lists_the_known_ones(self):
        # Close to no kernel: taken for a program (everything after it would be its own), which
        # is not on PATH.
        r = self.rprof("run", "fourier-transform", *FAST_RUN)
        self.assertError(r, 2, "'fourier-transform': not found on PATH, and not a kernel",
                         "`rprof kernels` lists them")
        self.assertNotIn("did you mean", r.stderr)
        self.assertFalse(os.path.exists(self.db), "a usage error must not create the database")
        # Close to one: the kernel error, with the list.
        r = self.rprof("run", "triadd", *FAST_RUN)
        self.assertError(r, 2, "unknown kernel 'triadd'; did you mean 'triad'?", "known kernels: ")
        for name in BUILTIN_KERNELS:
            self.assertIn(name, r.stderr)

    def test_kernel_typo_suggests(self):
        r = self.rprof("run", "tirad", *FAST_RUN)
        self.assertError(r, 2, "unknown kernel 'tirad'; did you mean 'triad'?")

    def test_bad_parameter_name(self):
        r = self.rprof("run", "triad", "-p", "m=1000", "--repeat", "1")
        self.assertError(r, 2, "kernel triad: no parameter 'm'; did you mean 'n'?",
                         "(parameters: n)")

    def test_non_integer_values(self):
        for value in ["abc", "1.5", "", "12abc"]:
            with self.subTest(value=value):
                r = self.rprof("run", "triad", "-p", f"n={value}", "--repeat", "1")
                self.assertError(r, 2, f"parameter n='{value}' is not an integer")

    def test_out_of_range_values(self):
        for value in ["0", "-1", "2000000001"]:
            with self.subTest(value=value):
                r = self.rprof("run", "triad", "-p", f"n={value}", "--repeat", "1")
                self.assertError(r, 2, f"parameter n={value} is out of range [1, 2000000000]")

    def test_parameter_without_equals(self):
        r = self.rprof("run", "triad", "-p", "n1000", "--repeat", "1")
        self.assertError(r, 2, "--param n1000: expected NAME=VALUE")

    def test_malformed_tag(self):
        r = self.rprof("run", "triad", *FAST_RUN, "--tag", "lab")
        self.assertError(r, 2, "--tag lab: expected KEY=VALUE")

    def test_tag_that_is_not_utf8(self):
        # Refused before anything is stored, so no stored tag holds bytes JSON cannot carry;
        # the message shows the bad byte escaped, not raw on the terminal.
        def run_tagged(tag):
            proc = subprocess.run(self.command(["run", "triad", *FAST_RUN, "--tag"]) + [tag],
                                  env=self.env, capture_output=True, timeout=60)
            return rprof_harness.Result(["run", "--tag", repr(tag)], proc.returncode,
                                        proc.stdout.decode(), proc.stderr.decode("utf-8"))

        self.assertError(run_tagged(b"k=\xff"), 2,
                         "--tag k=\\xff: byte 3 is not UTF-8; give KEY=VALUE as UTF-8 text")
        for tag in (b"lab\xe9=00", b"k=\xc0\xaf", b"k=\xed\xa0\x80", b"k=\xe2\x82"):
            with self.subTest(tag=tag):
                self.assertError(run_tagged(tag), 2, "is not UTF-8")
        self.assertFalse(os.path.exists(self.db), "a usage error must not create the database")

    def test_bad_repeat_and_min_time(self):
        self.assertError(self.rprof("run", "triad", "-p", "n=10", "--repeat", "0"), 2,
                         "--repeat must be at least 1")
        self.assertError(self.rprof("run", "triad", "-p", "n=10", "--min-time", "-1"), 2,
                         "--min-time -1: must be 0 or more seconds")
        self.assertError(self.rprof("run", "triad", "-p", "n=10", "--repeat", "many"), 2,
                         "see `rprof help run`")

    def test_no_kernel_named(self):
        self.assertError(self.rprof("run"), 2, "run: nothing to run", "rprof kernels")


class RepeatedNames(RprofTestCase):
    """A key given twice is a command-line matter: refused before measuring (exit 2, naming it)
    or resolved (stored once). It must never surface as a database error after the measurement,
    losing the run."""

    def assertRefusedOrStoredOnce(self, r, name, stored_once_sql):
        self.assertNotIn("UNIQUE constraint failed", r.stderr, r)
        self.assertIn(r.returncode, (0, 2), r)
        if r.returncode == 2:
            self.assertError(r, 2, name)
            self.assertFalse(os.path.exists(self.db) and
                             self.scalar("select count(*) from runs"), "a run was stored")
        else:
            self.assertEqual(self.scalar("select count(*) from runs"), 1)
            self.assertEqual(self.scalar(stored_once_sql), 1)

    def test_same_tag_twice(self):
        r = self.rprof("run", "triad", *FAST_RUN, "--tag", "lab=00", "--tag", "lab=01")
        self.assertRefusedOrStoredOnce(r, "lab",
                                       "select count(*) from tags where key = 'lab'")

    def test_same_event_twice(self):
        r = self.rprof("run", "triad", *FAST_RUN, "--events",
                       "perf::TASK-CLOCK,perf::TASK-CLOCK")
        self.assertNotIn("hardware resource limits", r.stderr,
                         "a repeated event is not a hardware limit")
        self.assertRefusedOrStoredOnce(r, "perf::TASK-CLOCK",
                                       "select count(*) from metrics where"
                                       " name = 'perf::TASK-CLOCK'")

    def test_same_event_twice_with_missing_allowed(self):
        r = self.rprof("run", "triad", *FAST_RUN, "--events",
                       "perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::TASK-CLOCK",
                       "--allow-missing-events")
        self.assertRefusedOrStoredOnce(r, "perf::TASK-CLOCK",
                                       "select count(*) from metrics where"
                                       " name = 'perf::TASK-CLOCK'")


class CommandLineErrors(RprofTestCase):
    def test_unknown_run_option_points_at_help(self):
        r = self.rprof("run", "triad", "--bogus", *FAST_RUN)
        self.assertError(r, 2, "run: unknown option '--bogus' (`rprof help run` lists the options)")

    def test_a_leading_option_that_is_not_global_is_runs(self):
        # `rprof [run options] TARGET`: the global options are --db, --help and --version only.
        r = self.rprof("--bogus", "run", "triad", db=False)
        self.assertError(r, 2, "run: unknown option '--bogus'", "`rprof help run`")
        r = self.rprof("--verison", db=False)
        self.assertError(r, 2, "unknown option '--verison'; did you mean '--version'?")

    def test_command_typo_suggests(self):
        r = self.rprof("histroy")
        self.assertError(r, 2, "'histroy' is neither a command nor a kernel",
                         "did you mean 'history'?")

    def test_no_command_prints_usage(self):
        r = self.rprof(db=False)
        self.assertExit(r, 2, "usage: rprof", "no command given")

    def test_help_for_unknown_command(self):
        r = self.rprof("help", "shwo", db=False)
        self.assertError(r, 2, "help: no command 'shwo'; did you mean 'show'?")

    def test_format_xml_is_refused_everywhere(self):
        for args in (["run", "triad", *FAST_RUN], ["history"], ["show", "1"], ["kernels"],
                     ["query", "select 1"]):
            with self.subTest(command=args[0]):
                r = self.rprof(*args, "--format", "xml")
                self.assertError(r, 2, "--format xml: unknown format; use table, csv or json")
        self.assertFalse(os.path.exists(self.db))

    def test_show_missing_run(self):
        rprof_harness.make_database(self.db)
        r = self.rprof("show", "999")
        self.assertError(r, 2, "run 999: no such run in " + self.db)

    def test_show_bad_id(self):
        for bad in ["abc", "0", "1x"]:
            with self.subTest(id=bad):
                r = self.rprof("show", bad)
                self.assertError(r, 2, f"show: expected a run id (a positive integer), got '{bad}'")
        self.assertFalse(os.path.exists(self.db))

    def test_history_bad_status(self):
        self.assertError(self.rprof("history", "--status", "great"), 2, "--status great")

    def test_version_and_help(self):
        r = self.rprof_ok("--version", db=False)
        self.assertRegex(r.stdout, r"^rprof \d+\.\d+\.\d+\n$")

        r = self.rprof_ok("--help", db=False)
        self.assertIn("usage: rprof", r.stdout)
        for command in ["run", "kernels", "history", "show", "query"]:
            self.assertRegex(r.stdout, rf"\n  {command} +\S", command)
        self.assertIn("exit status: 0 ok, 1 the target failed, 2 usage error, 3 environment",
                      r.stdout)

        r = self.rprof_ok("help", "run", db=False)
        self.assertIn("usage: rprof run [options] [--] KERNEL|PLUGIN.so|PROGRAM", r.stdout)
        for option in ["--param", "--events", "--allow-missing-events", "--repeat", "--min-time",
                       "--tag", "--format", "--quiet"]:
            self.assertIn(option, r.stdout)

        for command in ["kernels", "history", "show", "query"]:
            with self.subTest(command=command):
                r = self.rprof_ok("help", command, db=False)
                self.assertIn(f"usage: rprof {command}", r.stdout)
        self.assertFalse(os.path.exists(self.db))


class CounterErrors(RprofTestCase):
    def has_hardware_pmu(self):
        """Whether PAPI_TOT_INS can be counted here, asked of rprof itself."""
        r = self.rprof("run", "triad", "-p", "n=1000", "--repeat", "1", "--events",
                       "PAPI_TOT_INS", "--format", "json", db=self.path("probe.db"))
        if r.returncode == 0:
            value = json.loads(r.stdout)["metrics"]["PAPI_TOT_INS"]["pmu"]["value"]
            self.assertGreater(value, 0, r)
            return True
        return False

    def test_uncountable_event_stops_the_run(self):
        if self.has_hardware_pmu():
            self.skipTest("this machine counts PAPI_TOT_INS (checked > 0): nothing to refuse")
        r = self.rprof("run", "triad", "-p", "n=1000", "--repeat", "1", "--events",
                       "PAPI_TOT_INS")
        self.assertError(r, 3, "cannot open event PAPI_TOT_INS: ", "--allow-missing-events")
        reason = r.stderr.split("cannot open event PAPI_TOT_INS: ", 1)[1]
        self.assertGreater(len(reason.split("(--allow-missing-events")[0].strip()), 10, r)
        with open("/proc/cpuinfo") as cpuinfo:
            virtual = " hypervisor" in cpuinfo.read()
        if virtual:
            self.assertIn("no hardware PMU in this virtual machine", r.stderr)
        self.assertEqual(self.scalar("select count(*) from runs"), 0, "no run may be stored")

    def test_allow_missing_events_stores_null_with_note(self):
        if self.has_hardware_pmu():
            self.skipTest("this machine counts PAPI_TOT_INS (checked > 0): nothing is missing")
        r = self.rprof_ok("run", "triad", "-p", "n=1000", "--repeat", "2", "--events",
                          "perf::TASK-CLOCK,PAPI_TOT_INS", "--allow-missing-events", "--format",
                          "json")
        out = json.loads(r.stdout)
        self.assertEqual(out["status"], "ok")
        ins = out["metrics"]["PAPI_TOT_INS"]["pmu"]
        self.assertIsNone(ins["value"])
        self.assertTrue(ins["note"])
        self.assertGreater(out["metrics"]["perf::TASK-CLOCK"]["pmu"]["value"], 0)
        rows = self.query("select value, note from metrics where run_id = ? and "
                          "name = 'PAPI_TOT_INS' and source = 'pmu'", (out["run_id"],))
        self.assertEqual(len(rows), 1)
        value, note = rows[0]
        self.assertIsNone(value, "a missing event is NULL, never 0")
        self.assertEqual(note, ins["note"])
        self.assertEqual(self.scalar("select status from runs where id = ?", (out["run_id"],)),
                         "ok")

    def test_suggested_options_exist(self):
        # An error's way out must work: every --option it suggests is one `rprof run` takes.
        if self.has_hardware_pmu():
            self.skipTest("this machine counts PAPI_TOT_INS: no error to read")
        r = self.rprof("run", "triad", "-p", "n=1000", "--repeat", "1", "--events",
                       "PAPI_TOT_INS")
        self.assertExit(r, 3)
        suggested = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", r.stderr))
        self.assertIn("--allow-missing-events", suggested)
        run_help = self.rprof_ok("help", "run", db=False).stdout
        offered = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", run_help))
        self.assertEqual(suggested - offered, set(),
                         f"the error suggests options `rprof run` does not take: {r.stderr}")

    def test_unknown_event_name(self):
        # A name no event table knows is a mistake in the request (2), found before anything
        # opens; one that is known but cannot count here is the machine's (3).
        r = self.rprof("run", "triad", "-p", "n=1000", "--repeat", "1", "--events",
                       "NO_SUCH_EVENT_XYZ")
        self.assertError(r, 2, "--events NO_SUCH_EVENT_XYZ: neither a PAPI preset")
        self.assertFalse(os.path.exists(self.db), "a usage error must not create the database")


class DatabaseErrors(RprofTestCase):
    def test_missing_directory(self):
        missing = self.path("no/such/dir")
        r = self.rprof("run", "triad", *FAST_RUN, db=os.path.join(missing, "runs.db"))
        self.assertError(r, 3, f"database {missing}/runs.db: directory {missing} does not exist")
        self.assertFalse(os.path.exists(self.path("no")))

    def test_missing_directory_through_environment(self):
        missing = self.path("gone")
        env = dict(self.env, RPROF_DB=os.path.join(missing, "runs.db"))
        r = self.rprof("history", db=False, env=env)
        self.assertError(r, 3, f"directory {missing} does not exist")

    def test_unwritable_directory(self):
        locked = self.path("locked")
        os.mkdir(locked, 0o555)
        self.addCleanup(os.chmod, locked, 0o755)
        argv = self.command(["run", "triad", *FAST_RUN], db=os.path.join(locked, "runs.db"))
        as_user = {}
        if os.geteuid() == 0:
            # Permission bits do not bind root: run rprof as nobody instead, if it can reach the
            # binary and the temporary directory.
            os.chmod(self.tmp, 0o755)
            as_user = {"user": 65534, "group": 65534, "extra_groups": []}
        try:
            proc = subprocess.run(argv, env=self.env, capture_output=True, text=True,
                                  timeout=60, **as_user)
        except (PermissionError, OSError) as e:
            self.skipTest(f"running as root and cannot run rprof as nobody ({e}): permission "
                          "bits do not apply to root")
        r = rprof_harness.Result(argv[1:], proc.returncode, proc.stdout, proc.stderr)
        if as_user and r.returncode == 126:
            self.skipTest("running as root and nobody cannot execute rprof here")
        self.assertError(r, 3, f"directory {locked} is not writable")
        self.assertEqual(os.listdir(locked), [])

    def test_empty_db_flag_is_refused(self):
        # --db="$UNSET" must not quietly use $RPROF_DB or the default database instead.
        elsewhere = self.path("elsewhere.db")
        env = dict(self.env, RPROF_DB=elsewhere)
        for flag in (["--db="], ["--db", ""]):
            for args in (["run", "triad", *FAST_RUN], ["history"], ["query", "select 1"]):
                with self.subTest(flag=flag, command=args[0]):
                    r = self.rprof(*flag, *args, db=False, env=env)
                    self.assertError(r, 2, "--db is empty: name a database file, or drop --db "
                                     "to use $RPROF_DB or the default")
        self.assertEqual(os.listdir(self.tmp), [], "a database was created")

    def test_empty_rprof_db_means_unset(self):
        # An empty variable is an unset one (as with XDG_DATA_HOME): the default path is used.
        env = dict(self.env, RPROF_DB="")
        self.rprof_ok("run", "triad", *FAST_RUN, "-q", db=False, env=env)
        default = os.path.join(self.env["XDG_DATA_HOME"], "rprof", "rprof.db")
        self.assertEqual(self.scalar("select count(*) from runs", db=default), 1)

    def test_not_an_sqlite_file_is_untouched(self):
        bad = self.path("notes.db")
        content = b"these are my notes, not a database\n" + bytes(range(256)) * 16
        with open(bad, "wb") as f:
            f.write(content)
        for args in (["run", "triad", *FAST_RUN], ["history"], ["show", "1"],
                     ["query", "select 1"]):
            with self.subTest(command=args[0]):
                r = self.rprof(*args, db=bad)
                self.assertError(r, 3, f"database {bad}: ", "not a database")
                self.assertEqual(file_bytes(bad), content)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["notes.db"])

    def test_foreign_sqlite_file_is_refused_and_untouched(self):
        # Someone else's SQLite file, schema version 0, with a table called runs: rprof refuses
        # it as not its own, and must leave it exactly as it was (journal mode included).
        foreign = self.path("laps.db")
        con = sqlite3.connect(foreign)
        con.execute("create table runs (lap integer, seconds real)")
        con.execute("insert into runs values (1, 62.5)")
        con.commit()
        con.close()
        content = file_bytes(foreign)
        r = self.rprof("run", "triad", *FAST_RUN, db=foreign)
        self.assertError(r, 3, f"database {foreign}: ", "not an rprof database")
        self.assertEqual(self.query("select * from runs", db=foreign), [(1, 62.5)])
        self.assertEqual(self.scalar("pragma journal_mode", db=foreign), "delete")
        self.assertTrue(file_bytes(foreign) == content, "the refused file was modified")

    def test_newer_schema_is_refused_and_untouched(self):
        newer = self.path("newer.db")
        con = sqlite3.connect(newer)
        con.execute("create table runs (id integer primary key, from_the_future text)")
        con.execute("insert into runs (from_the_future) values ('yes')")
        con.execute("pragma user_version = 99")
        con.commit()
        con.close()
        content = file_bytes(newer)
        for args in (["run", "triad", *FAST_RUN], ["history"], ["query", "select 1"]):
            with self.subTest(command=args[0]):
                r = self.rprof(*args, db=newer)
                self.assertError(r, 3, "schema version 99 is newer than this rprof's ")
                self.assertRegex(r.stderr, r"newer than this rprof's \d+;")
                self.assertEqual(file_bytes(newer), content)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["newer.db"])

    def test_a_version_rprof_never_writes_is_refused_and_untouched(self):
        # Issue 41: user_version -1 was taken for an old schema, and migrating it failed with
        # "table machines already exists".
        other = self.path("other.db")
        self.rprof_ok("run", "triad", *FAST_RUN, db=other)
        con = sqlite3.connect(other)
        con.execute("pragma user_version = -1")
        con.commit()
        con.close()
        content = file_bytes(other)
        for args in (["run", "triad", *FAST_RUN], ["history"], ["query", "select 1"]):
            with self.subTest(command=args[0]):
                r = self.rprof(*args, db=other)
                self.assertError(r, 3, "schema version -1 is not one rprof writes")
                self.assertNotIn("already exists", r.stderr)
                self.assertEqual(file_bytes(other), content)

    def test_a_fifo_or_a_device_is_not_a_database(self):
        # Issue 41: each was "the disk could not be written or read, most often because it is
        # full"; a FIFO could block.
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        for db, what in ((fifo, "a FIFO"), ("/dev/null", "a character device"),
                         ("/dev/zero", "a character device"), (self.tmp, "a folder")):
            for args in (["run", "triad", *FAST_RUN], ["history"]):
                with self.subTest(db=db, command=args[0]):
                    r = self.rprof(*args, db=db, timeout=20)
                    self.assertError(r, 3, f"database {db}: not a database file: it is {what}")
                    self.assertNotIn("full", r.stderr)

    def test_a_wal_database_on_read_only_media_is_read(self):
        # Issue 41: history, show, query and report could not read a WAL database on a
        # read-only mount (exit 3, blaming permissions or free space): its readers' -shm file
        # cannot be created there. A read-only bind mount of a folder holding one.
        source, mount = self.path("source"), self.path("mount")
        os.mkdir(source)
        os.mkdir(mount)
        self.rprof_ok("run", "triad", *FAST_RUN, db=os.path.join(source, "runs.db"))
        made = subprocess.run(["mount", "--bind", source, mount], capture_output=True)
        if made.returncode != 0:
            self.skipTest("a read-only bind mount needs root: " + made.stderr.decode().strip())
        self.addCleanup(subprocess.run, ["umount", mount], capture_output=True)
        ro = subprocess.run(["mount", "-o", "remount,bind,ro", mount], capture_output=True)
        if ro.returncode != 0:
            self.skipTest("cannot remount read-only: " + ro.stderr.decode().strip())
        db = os.path.join(mount, "runs.db")
        for args, expected in ((["history"], "triad"), (["show", "1"], "run 1"),
                               (["query", "select count(*) from runs"], "1")):
            with self.subTest(command=args[0]):
                r = self.rprof(*args, db=db)
                self.assertEqual(r.returncode, 0, r)
                self.assertIn(expected, r.stdout)
        r = self.rprof("run", "triad", *FAST_RUN, db=db)
        self.assertError(r, 3, "it is on a read-only file system: nothing can be stored there")


if __name__ == "__main__":
    rprof_harness.main()
