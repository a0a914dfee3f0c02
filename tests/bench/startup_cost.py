#!/usr/bin/env python3
"""rprof's own cost as a wrapper, against perf stat's (issue 27): the median wall time of 10
runs each of `perf stat /bin/true`, `rprof --version`, `rprof history --limit 1` and
`rprof run --counters pmu /bin/true` on a temporary database, as ratios to perf stat's.

usage: tests/bench/startup_cost.py [RPROF ...]   (default: build/profiler/rprof)
Compare binaries in one sitting: the machine's load moves every figure, the ratios less.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def median_ms(argv, n=10):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main():
    binaries = sys.argv[1:] or ["build/profiler/rprof"]
    with tempfile.TemporaryDirectory() as tmp:
        perf = median_ms(["perf", "stat", "/bin/true"])
        print(f"{'perf stat /bin/true':50s} {perf:7.2f} ms")
        for i, rprof in enumerate(binaries):
            db = os.path.join(tmp, f"{i}.db")
            # The database exists and is current before timing, as it is for every run but
            # the first.
            subprocess.run([rprof, "--db", db, "run", "--counters", "pmu", "/bin/true"],
                           capture_output=True)
            for args in (["--version"], ["--db", db, "history", "--limit", "1"],
                         ["--db", db, "run", "--counters", "pmu", "/bin/true"]):
                ms = median_ms([rprof] + args)
                label = f"{rprof} {' '.join(a for a in args if a not in ('--db', db))}"
                print(f"{label:50s} {ms:7.2f} ms  {ms / perf:5.2f}x")


if __name__ == "__main__":
    main()
