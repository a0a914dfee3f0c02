"""What rprof adds to a Google Benchmark binary's own reported time (issue 17), side by side in
one sitting: tests/cli_targets/bench_fixture run plainly, under `rprof --counters model` (the
shim and the marker region's clock only: no counters) and under `rprof --counters pmu` (the
region's PAPI events and the process's counters too). Rounds are interleaved, so that a change
in the machine's load falls on every mode alike; each figure is the median over rounds of the
median over Google Benchmark's repetitions of its real time per iteration.

    python3 tests/bench/gbench_overhead.py build/profiler/rprof build/tests/cli_targets \\
        [--rounds 3] [--repetitions 3] [--min-time 0.2]
"""

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile


def native(fixture, args, tmp):
    out = os.path.join(tmp, "native.json")
    subprocess.run([fixture, f"--benchmark_out={out}", "--benchmark_out_format=json"] + args,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        rows = json.load(f)["benchmarks"]
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    times = {}
    for r in rows:
        if r["run_type"] == "iteration":
            times.setdefault(r["run_name"], []).append(r["real_time"] * unit[r["time_unit"]])
    return {name: statistics.median(t) for name, t in times.items()}


def under_rprof(rprof, fixture, counters, args, tmp):
    db = os.path.join(tmp, f"{counters}.db")
    if os.path.exists(db):
        os.remove(db)
    subprocess.run([rprof, "--db", db, "run", "-q", "--counters", counters, fixture] + args,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    try:
        return dict(con.execute("select r.target, m.value from runs r join metrics m on "
                                "m.run_id = r.id and m.name = 'time_s' and m.region = ''"))
    finally:
        con.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rprof")
    parser.add_argument("targets")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--min-time", default="0.2")
    opts = parser.parse_args()
    fixture = os.path.join(opts.targets, "bench_fixture")
    if not os.access(fixture, os.X_OK):
        print("bench_fixture not built (no Google Benchmark)")
        return 77
    args = [f"--benchmark_repetitions={opts.repetitions}",
            f"--benchmark_min_time={opts.min_time}"]
    modes = {"plain": lambda tmp: native(fixture, args, tmp),
             "rprof, no counters": lambda tmp: under_rprof(opts.rprof, fixture, "model", args, tmp),
             "rprof, pmu counters": lambda tmp: under_rprof(opts.rprof, fixture, "pmu", args, tmp)}
    seen = {mode: {} for mode in modes}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(opts.rounds):
            for mode, measure in modes.items():
                for name, t in measure(tmp).items():
                    seen[mode].setdefault(name, []).append(t)
    names = list(seen["plain"])
    print(f"real time per iteration, median of {opts.rounds} rounds x {opts.repetitions} "
          f"repetitions, --benchmark_min_time={opts.min_time}")
    print(f"{'benchmark':18} {'plain':>11} {'no counters':>11} {'ratio':>6} "
          f"{'pmu':>11} {'ratio':>6}")
    for name in names:
        plain = statistics.median(seen["plain"][name])
        model = statistics.median(seen["rprof, no counters"][name])
        pmu = statistics.median(seen["rprof, pmu counters"][name])
        print(f"{name:18} {plain:11.4g} {model:11.4g} {model / plain:6.3f} "
              f"{pmu:11.4g} {pmu / plain:6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
