"""Several rprof processes on one database at once: four writers storing five runs each (starting
on a database that does not exist yet, so they also race to create and migrate it), with readers
querying alongside. Every run must be stored and no process may fail."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rprof_harness  # noqa: E402
from rprof_harness import RprofTestCase  # noqa: E402

WRITERS = 4
RUNS_EACH = 5

# One writer: its runs one after another, the printed ids on stdout, the first failure's exit
# status and stderr passed on.
DRIVER = r"""
import subprocess, sys
argv, tag, count = sys.argv[1:-2], sys.argv[-2], int(sys.argv[-1])
for i in range(count):
    proc = subprocess.run(argv + ["--tag", tag, "--tag", "seq=%d" % i],
                          capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0 or proc.stderr:
        sys.stderr.write("run %d: exit %d: %s" % (i, proc.returncode, proc.stderr))
        sys.exit(proc.returncode or 1)
"""

# One reader: queries until told to stop (its stdin closes), failing on the first error once the
# database has been created and migrated.
READER = r"""
import subprocess, sys, threading
argv = sys.argv[1:]
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
queries = 0
while not done.is_set():
    proc = subprocess.run(argv, capture_output=True, text=True)
    not_yet = ((proc.returncode == 3 and "no database at" in proc.stderr) or
               (proc.returncode == 2 and "no such table: runs" in proc.stderr))
    if queries == 0 and not_yet:
        continue  # no writer has created and migrated the database yet
    if proc.returncode != 0 or proc.stderr:
        sys.stderr.write("exit %d: %s" % (proc.returncode, proc.stderr))
        sys.exit(1)
    queries += 1
print(queries)
"""


class ConcurrentWriters(RprofTestCase):
    def test_four_writers_five_runs_each(self):
        run = self.command(["run", "triad", "-p", "n=1000", "--repeat", "2", "--quiet"])
        query = self.command(["query", "select count(*) from runs", "--format", "csv"])
        readers = [subprocess.Popen([sys.executable, "-c", READER, *query], env=self.env,
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for _ in range(2)]
        writers = [subprocess.Popen([sys.executable, "-c", DRIVER, *run, f"proc={p}",
                                     str(RUNS_EACH)], env=self.env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
                   for p in range(WRITERS)]
        started = time.monotonic()
        outputs = []
        try:
            for p, writer in enumerate(writers):
                stdout, stderr = writer.communicate(timeout=240)
                outputs.append((p, writer.returncode, stdout, stderr))
            reader_outputs = [reader.communicate(input="", timeout=60) + (reader.returncode,)
                              for reader in readers]
        finally:
            for proc in writers + readers:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
        elapsed = time.monotonic() - started

        ids = []
        printed_by = {}
        for p, returncode, stdout, stderr in outputs:
            self.assertEqual((returncode, stderr), (0, ""), f"writer {p}: {stderr}")
            printed = [int(line) for line in stdout.split()]
            self.assertEqual(len(printed), RUNS_EACH, f"writer {p} printed {stdout!r}")
            self.assertEqual(printed, sorted(printed), "a writer's own runs get rising ids")
            ids += printed
            printed_by[p] = printed
        self.assertEqual(sorted(ids), list(range(1, WRITERS * RUNS_EACH + 1)))
        for stdout, stderr, returncode in reader_outputs:
            self.assertEqual((returncode, stderr), (0, ""), stderr)
            self.assertGreater(int(stdout), 0, "a reader never got an answer")

        total = WRITERS * RUNS_EACH
        self.assertEqual(self.query("select count(*), count(distinct id), min(status),"
                                    " max(status) from runs"), [(total, total, "ok", "ok")])
        self.assertEqual(self.scalar("select count(*) from samples"), 2 * total)
        self.assertEqual(self.scalar("select count(*) from runs where repetitions = 2"), total)
        self.assertEqual(self.scalar("select count(*) from machines"), 1)
        per_writer = self.query("select key || '=' || value, count(*) from tags"
                                " where key = 'proc' group by value order by value")
        self.assertEqual(per_writer, [(f"proc={p}", RUNS_EACH) for p in range(WRITERS)])
        # The id each writer was told is the run it stored, in its order.
        for p, printed in printed_by.items():
            for seq, run_id in enumerate(printed):
                self.assertEqual(self.query("select key, value from tags where run_id = ?"
                                            " order by key", (run_id,)),
                                 [("proc", str(p)), ("seq", str(seq))])
        # Each run's own rows belong to it: every run has its metrics and both of its tags.
        self.assertEqual(self.query("select count(*) from runs r where"
                                    " (select count(*) from tags t where t.run_id = r.id) != 2"
                                    " or not exists (select 1 from metrics m where"
                                    " m.run_id = r.id and m.name = 'flops')"), [(0,)])
        self.assertEqual(self.scalar("pragma integrity_check"), "ok")
        self.assertGreaterEqual(self.scalar("pragma user_version"), 1)
        print(f"20 runs by {WRITERS} writers in {elapsed:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    rprof_harness.main()
