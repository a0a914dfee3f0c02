"""`rprof query`: the user's own SQL, read-only, in every format. Writes, several statements and
bad SQL are refused with exit 2 and leave the database exactly as it was."""

import csv
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import FAST_RUN, RprofTestCase, file_bytes  # noqa: E402


class QueryTestCase(RprofTestCase):
    def setUp(self):
        super().setUp()
        self.rprof_ok("run", "triad", *FAST_RUN, "-q", "--tag", "lab=00")
        self.rprof_ok("run", "dot", *FAST_RUN, "-q")

    def snapshot(self):
        """Everything a write could change: the database file's bytes, what its write-ahead log
        holds, and the row counts. (The -shm index and an empty -wal that SQLite leaves beside
        a WAL database after a read-only connection are not changes.)"""
        wal = self.db + "-wal"
        files = (file_bytes(self.db), file_bytes(wal) if os.path.exists(wal) else b"")
        counts = {table: self.scalar(f"select count(*) from {table}")
                  for table in ["machines", "runs", "samples", "metrics", "tags"]}
        return files, counts, self.scalar("pragma user_version")


class Reading(QueryTestCase):
    def test_count_in_every_format(self):
        sql = "select count(*) as n from runs"
        self.assertEqual(self.rprof_ok("query", sql).stdout.split(), ["n", "2"])
        self.assertEqual(self.rprof_ok("query", sql, "--format", "csv").stdout, "n\n2\n")
        self.assertEqual(json.loads(self.rprof_ok("query", sql, "--format", "json").stdout),
                         [{"n": 2}])

    def test_types_and_null(self):
        sql = "select null as a, 'x, \"y\"' as b, 1.5 as c, 7 as d"
        self.assertEqual(json.loads(self.rprof_ok("query", sql, "--format", "json").stdout),
                         [{"a": None, "b": 'x, "y"', "c": 1.5, "d": 7}])
        rows = list(csv.reader(io.StringIO(self.rprof_ok("query", sql, "--format", "csv").stdout)))
        self.assertEqual(rows, [["a", "b", "c", "d"], ["", 'x, "y"', "1.5", "7"]])
        table = self.rprof_ok("query", sql).stdout.splitlines()
        self.assertEqual(table[0].split(), ["a", "b", "c", "d"])
        self.assertEqual(table[1].split()[0], "NULL")

    def test_stored_metrics_with_their_source(self):
        sql = ("select r.target, m.name, m.source, m.value from metrics m join runs r"
               " on r.id = m.run_id where m.name in ('flops', 'bytes_dram')"
               " order by r.id, m.name")
        out = json.loads(self.rprof_ok("query", sql, "--format", "json").stdout)
        self.assertEqual(out, [
            {"target": "triad", "name": "bytes_dram", "source": "model", "value": 24000},
            {"target": "triad", "name": "flops", "source": "model", "value": 2000},
            {"target": "dot", "name": "bytes_dram", "source": "model", "value": 16000},
            {"target": "dot", "name": "flops", "source": "model", "value": 2000},
        ])

    def test_empty_result_keeps_the_header(self):
        sql = "select id, target from runs where target = 'nothing'"
        self.assertEqual(self.rprof_ok("query", sql, "--format", "csv").stdout, "id,target\n")
        self.assertEqual(json.loads(self.rprof_ok("query", sql, "--format", "json").stdout), [])

    def test_trailing_semicolon_and_space_are_one_statement(self):
        out = self.rprof_ok("query", "select count(*) as n from tags;  \n", "--format", "json")
        self.assertEqual(json.loads(out.stdout), [{"n": 1}])

    def test_json_output_is_valid_for_every_real(self):
        # SQLite's REAL holds infinities (1e999 overflows to one); JSON has no literal for them,
        # so the output must still parse (null, as JsonNumber writes non-finite values).
        out = self.rprof_ok("query", "select 1e999 as big, -1e999 as small, 0.5 as half",
                            "--format", "json").stdout
        try:
            rows = json.loads(out, parse_constant=lambda name: self.fail(
                f"not JSON: the literal {name} in {out!r}"))
        except json.JSONDecodeError as e:
            self.fail(f"query --format json printed invalid JSON ({e}): {out!r}")
        self.assertEqual(rows[0]["half"], 0.5)
        self.assertIsNone(rows[0]["big"])


class Streaming(QueryTestCase):
    """Rows are written as they are stepped: a result far larger than memory should hold never
    is held. Read on a pipe, rprof blocks on a full pipe while it still has rows to write, so
    its peak resident memory (VmHWM) can be read while it runs: held rows would show as
    hundreds of megabytes before the first row arrived."""

    ROWS = 1_000_000
    SQL = (f"with recursive c(x) as (select 1 union all select x + 1 from c where x < {ROWS})"
           " select x, x * 2 as twice, 'row ' || x as label from c")
    # Held, these rows took about 240 MB (3 M rows: 710 MB); streamed, rprof stays near 10 MB.
    PEAK_LIMIT_KB = 100 * 1024

    def peak_kb(self, pid):
        """VmHWM of a running process; None once it has ended (a zombie has none)."""
        try:
            with open(f"/proc/{pid}/status") as f:
                return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
        except (OSError, StopIteration):
            return None

    def read_streamed(self, fmt):
        """All of stdout, with rprof's peak memory checked after the first and every 1 MiB."""
        chunks, size, next_check, peaks = [], 0, 0, []
        with subprocess.Popen(self.command(["query", self.SQL, "--format", fmt]), env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            try:
                while chunk := proc.stdout.read1(1 << 16):
                    chunks.append(chunk)
                    size += len(chunk)
                    if size >= next_check and (peak := self.peak_kb(proc.pid)) is not None:
                        peaks.append(peak)
                        next_check = size + (1 << 20)
                proc.wait(timeout=60)
            finally:
                proc.kill()
            self.assertEqual(proc.returncode, 0, proc.stderr.read())
        self.assertGreater(len(peaks), 5, "rprof ended before its output was read")
        # Not in the sanitizer build: ASan keeps freed memory in quarantine (hundreds of MB),
        # so its peak says nothing of whether rows were held.
        if not rprof_harness.SANITIZED:
            self.assertLess(max(peaks), self.PEAK_LIMIT_KB,
                            f"rprof held the rows: peak resident memory {max(peaks)} kB "
                            f"while it wrote {fmt}")
        return b"".join(chunks).decode()

    def test_csv_json_and_table_stream_every_row(self):
        lines = self.read_streamed("csv").splitlines()
        self.assertEqual(len(lines), self.ROWS + 1)
        self.assertEqual(lines[:2], ["x,twice,label", "1,2,row 1"])
        self.assertEqual(lines[-1], f"{self.ROWS},{2 * self.ROWS},row {self.ROWS}")

        rows = json.loads(self.read_streamed("json"))
        self.assertEqual(len(rows), self.ROWS)
        self.assertEqual(rows[-1], {"x": self.ROWS, "twice": 2 * self.ROWS,
                                    "label": f"row {self.ROWS}"})

        lines = self.read_streamed("table").splitlines()
        self.assertEqual(len(lines), self.ROWS + 1)
        self.assertEqual(lines[-1].split(), [str(self.ROWS), str(2 * self.ROWS), "row",
                                             str(self.ROWS)])

    def test_text_table_aligns_on_its_first_thousand_rows(self):
        # Widths are fixed by the first 1000 rows; a wider cell later pushes its own line only.
        sql = ("with recursive c(x) as (select 1 union all select x + 1 from c where x < 1002)"
               " select case when x = 1002 then 'a much wider cell' else 'w' || x end as name,"
               " x from c")
        lines = self.rprof_ok("query", sql).stdout.splitlines()
        self.assertEqual(lines[0], "name      x")
        self.assertEqual(lines[1000], "w1000  1000")
        self.assertEqual(lines[1001], "w1001  1001")
        self.assertEqual(lines[1002], "a much wider cell  1002")

    def test_a_write_that_fails_stops_the_query(self):
        with open("/dev/full", "wb") as full:
            proc = subprocess.run(self.command(["query", self.SQL, "--format", "csv"]),
                                  env=self.env, stdout=full, stderr=subprocess.PIPE, text=True,
                                  timeout=60)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertEqual(proc.stderr.count("rprof: error: "), 1, proc.stderr)
        self.assertIn("cannot write the report to standard output: No space left on device",
                      proc.stderr)


class Refusing(QueryTestCase):
    def test_writes_are_refused_and_change_nothing(self):
        before = self.snapshot()
        for sql in ["delete from runs",
                    "insert into tags (run_id, key, value) values (1, 'x', 'y')",
                    "drop table runs",
                    "update runs set status = 'failed'",
                    "create table mine (x)",
                    "replace into tags (run_id, key, value) values (1, 'lab', '99')",
                    "with doomed as (select id from runs) delete from runs"
                    " where id in (select id from doomed)",
                    "pragma user_version = 5",
                    "vacuum",
                    "alter table runs add column x"]:
            with self.subTest(sql=sql):
                r = self.rprof("query", sql)
                self.assertError(r, 2, "query: ")
                self.assertEqual(self.snapshot(), before)
        r = self.rprof("query", "delete from runs")
        self.assertError(r, 2, "the statement would write to the database; rprof query is "
                               "read-only")

    def test_nothing_reaches_outside_the_database(self):
        # Issue 41: fts3_tokenizer (which reads and writes memory at an address it is given)
        # was callable; ATTACH creates a file; a PRAGMA that sets is not a read.
        before = self.snapshot()
        for sql, what in [("select fts3_tokenizer('simple')", "the function fts3_tokenizer"),
                          ("select load_extension('/tmp/x.so')", "the function load_extension"),
                          (f"attach '{self.path('other.db')}' as other", "ATTACH"),
                          ("pragma journal_mode = delete", "PRAGMA journal_mode = delete")]:
            with self.subTest(sql=sql):
                r = self.rprof("query", sql)
                self.assertError(r, 2, f"query: {what} is not allowed")
                self.assertEqual(self.snapshot(), before)
        self.assertFalse(os.path.exists(self.path("other.db")))
        # Reading stays whole: functions, recursive CTEs, the schema's PRAGMAs.
        r = self.rprof("query", "with recursive c(x) as (select 1 union all select x + 1 from c "
                       "where x < 3) select sum(x), json_object('a', abs(-2)) from c")
        self.assertEqual(r.returncode, 0, r)
        self.assertIn('{"a":2}', r.stdout)
        r = self.rprof("query", "pragma table_info(runs)")
        self.assertEqual(r.returncode, 0, r)
        self.assertIn("machine_id", r.stdout)

    def test_two_statements_are_refused(self):
        before = self.snapshot()
        for sql in ["select 1; select 2", "select 1; delete from runs",
                    "select count(*) from runs; drop table runs;"]:
            with self.subTest(sql=sql):
                r = self.rprof("query", sql)
                self.assertError(r, 2, "query: give one statement at a time")
                self.assertEqual(self.snapshot(), before)

    def test_syntax_error(self):
        before = self.snapshot()
        r = self.rprof("query", "selec count(*) from runs")
        self.assertError(r, 2, 'query: near "selec": syntax error')
        r = self.rprof("query", "select * from no_such_table")
        self.assertError(r, 2, "query: no such table: no_such_table")
        self.assertEqual(self.snapshot(), before)

    def test_no_statement(self):
        self.assertError(self.rprof("query", ""), 2, "query: no SQL given")
        self.assertError(self.rprof("query", " ; "), 2, "query: the SQL holds no statement")
        self.assertError(self.rprof("query", "/* only a comment */"), 2,
                         "query: the SQL holds no statement")


class MissingDatabase(RprofTestCase):
    def test_query_on_missing_database(self):
        r = self.rprof("query", "select 1")
        self.assertError(r, 3, f"no database at {self.db}: nothing is stored there yet")
        self.assertFalse(os.path.exists(self.db), "a read-only query must not create the file")


if __name__ == "__main__":
    rprof_harness.main()
