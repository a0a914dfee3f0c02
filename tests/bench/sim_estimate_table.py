#!/usr/bin/env python3
"""The sim time estimate against valgrind's real time, for every built-in kernel at its default
size (issue 24: each within 1.5x once this machine has a history).

    tests/bench/sim_estimate_table.py [--rprof build/profiler/rprof] [--db SEED.db]
                                      [--history half|none] [KERNEL...]

For each kernel, in a fresh copy of SEED.db (a database with this machine's profile, so that the
simulated caches are the ones `rprof run` simulates; none: sysfs's sizes):
  1. --history half (default): one sim replay at half its first parameter (its size), the
     history the estimate is fitted to; --history none: no replay of it before (the estimate
     then rests on the kernels before it in the list, or, for the first, on the prior);
  2. one sim replay at its default size: rprof's expectation before it ran (from the note of its
     sim_replay_s metric), against the time valgrind took.
Prints one line per kernel and the worst ratio. Every replay is `rprof run K --counters sim
--repeat 1`; wall times depend on the load of the machine, which this script does not control.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

EXPECTED = re.compile(r"expected ([0-9.e+-]+) s \((.*)\)$")


def run_json(rprof, db, args):
    out = subprocess.run([rprof, "run", *args, "--counters", "sim", "--repeat", "1",
                          "--min-time", "0.05", "--format", "json"],
                         capture_output=True, text=True, env={**os.environ, "RPROF_DB": db})
    if out.returncode != 0:
        raise RuntimeError(f"rprof run {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def replay_time(run):
    """(expected s, basis, measured s, work s) of a stored run's replay."""
    m = run["metrics"]["sim_replay_s"]
    match = EXPECTED.search(m["clock"]["note"])
    return float(match.group(1)), match.group(2), m["clock"]["value"], m["model"]["value"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rprof", default="build/profiler/rprof")
    ap.add_argument("--db", help="a database to copy (this machine's profile)")
    ap.add_argument("--history", choices=["half", "none"], default="half")
    ap.add_argument("kernels", nargs="*")
    opts = ap.parse_args()
    # Stopped early (kill, Ctrl-C), it still removes its temporary database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = tempfile.mkdtemp(prefix="rprof-sim-estimate-")
    db = os.path.join(tmp, "runs.db")
    if opts.db:
        shutil.copyfile(opts.db, db)
    kernels = json.loads(subprocess.run([opts.rprof, "kernels", "--format", "json"],
                                        capture_output=True, text=True, check=True).stdout)
    print(f"{'kernel':20} {'size':>26} {'work':>7} {'expected':>9} {'measured':>9} "
          f"{'measured/':>9}  expectation from")
    print(f"{'':20} {'':>26} {'ref s':>7} {'s':>9} {'s':>9} {'expected':>9}")
    worst = 1.0
    try:
        for k in kernels:
            if opts.kernels and k["name"] not in opts.kernels:
                continue
            first = k["params"][0]
            size = f"{first['name']}={first['default']}"
            if opts.history == "half":
                half = max(first["min"], first["default"] // 2)
                run_json(opts.rprof, db, [k["name"], "-p", f"{first['name']}={half}"])
            run = run_json(opts.rprof, db, [k["name"]])
            expected, basis, measured, work = replay_time(run)
            ratio = measured / expected
            worst = max(worst, ratio, 1 / ratio)
            basis = ("its own replays" if " of " + k["name"] + " under" in basis
                     else "other kernels' replays" if "none of" in basis else "the prior")
            print(f"{k['name']:20} {size:>26} {work:7.1f} {expected:9.1f} {measured:9.1f} "
                  f"{ratio:9.2f}  {basis}", flush=True)
    finally:
        shutil.rmtree(tmp)
    print(f"worst: {worst:.2f}x")
    return 0 if worst <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
