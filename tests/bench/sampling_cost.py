#!/usr/bin/env python3
"""What sampling a program for its hot functions costs it (issue 28), through the rprof binary:
the program's wall time as `rprof run --counters pmu` measures it, with the cpu-clock sampler
(the default, --functions 10) and without it (--functions off), runs interleaved, median of N
each, and the spread of the unsampled runs (the noise the sampled median should stay within);
beside it the program's CPU time (user + system: the timer interrupts are charged there, and
another process's load moves it less than wall time) and the whole rprof command's time
(symbolizing the samples comes after the program).

usage: tests/bench/sampling_cost.py [--runs N] [RPROF [PROGRAM ARGS...]]
  default: build/profiler/rprof build/tests/cli_targets/hot_functions 1200 200 (about 1 s here)
Take the figures in one sitting: the machine's load moves each of them, the ratio less.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def program_seconds(rprof, db, functions, program):
    """The program's time as rprof measured it, and the whole rprof command's (symbolizing the
    samples is rprof's own work after the program ended)."""
    start = time.perf_counter()
    out = subprocess.run([rprof, "--db", db, "run", "--counters", "pmu", "--functions", functions,
                          "--format", "json", "-o", "/dev/stdout"] + program,
                         capture_output=True, text=True, check=True)
    run = json.loads(out.stdout[out.stdout.index("{"):])
    sampled = len(run["functions"]) > 0
    if sampled != (functions != "off"):
        sys.exit(f"--functions {functions} gave functions {sorted(run['functions'])}")
    return (run["metrics"]["time_s"]["clock"]["value"], time.perf_counter() - start,
            run["metrics"]["cpu_time_s"]["clock"]["value"])


def main():
    args = sys.argv[1:]
    runs = 5
    if args[:1] == ["--runs"]:
        runs, args = int(args[1]), args[2:]
    rprof = args[0] if args else "build/profiler/rprof"
    program = args[1:] or ["build/tests/cli_targets/hot_functions", "1200", "200"]
    times = {"off": [], "10": []}
    whole = {"off": [], "10": []}
    cpu = {"off": [], "10": []}
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "runs.db")
        program_seconds(rprof, db, "off", program)  # the database made, caches warm
        for _ in range(runs):
            for functions in ("off", "10"):
                program_s, rprof_s, cpu_s = program_seconds(rprof, db, functions, program)
                times[functions].append(program_s)
                whole[functions].append(rprof_s)
                cpu[functions].append(cpu_s)
    off, on = statistics.median(times["off"]), statistics.median(times["10"])
    spread = (max(times["off"]) - min(times["off"])) / off
    cpu_spread = (max(cpu["off"]) - min(cpu["off"])) / statistics.median(cpu["off"])
    print(f"program: {' '.join(program)}; {runs} runs each, interleaved")
    for functions, label in (("off", "--functions off (not sampled)"),
                             ("10", "default (sampled, 0.5 ms)")):
        t = times[functions]
        print(f"{label:32s} median {statistics.median(t):.4f} s  "
              f"min {min(t):.4f}  max {max(t):.4f}  "
              f"(CPU time: median {statistics.median(cpu[functions]):.4f} s; whole rprof "
              f"command: median {statistics.median(whole[functions]):.4f} s)")
    cpu_off, cpu_on = statistics.median(cpu["off"]), statistics.median(cpu["10"])
    print(f"sampled / unsampled median: {on / off:.4f} ({100 * (on / off - 1):+.2f} %); "
          f"unsampled spread (max-min)/median: {100 * spread:.2f} %; CPU time "
          f"{cpu_on / cpu_off:.4f} ({100 * (cpu_on / cpu_off - 1):+.2f} %), unsampled spread "
          f"{100 * cpu_spread:.2f} %")


if __name__ == "__main__":
    main()
