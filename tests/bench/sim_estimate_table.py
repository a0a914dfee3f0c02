#!/usr/bin/env python3
"""The sim time estimate against valgrind's real time, for every built-in kernel at its default
size (issue 24: each within 1.5x once this machine has a history), or, with --programs, for ten
programs of different instruction mixes (each within 2x, with no history at all).

    tests/bench/sim_estimate_table.py [--rprof build/profiler/rprof] [--db SEED.db]
                                      [--history half|none] [KERNEL...]
    tests/bench/sim_estimate_table.py --programs [--rprof ...] [--db SEED.db] [--timeout S]
                                      [--stream-src GIT|DIR] [--polybench-src GIT|DIR]
                                      [--keep] [PROGRAM...]

For each kernel, in a fresh copy of SEED.db (a database with this machine's profile, so that the
simulated caches are the ones `rprof run` simulates; none: sysfs's sizes):
  1. --history half (default): one sim replay at half its first parameter (its size), the
     history the estimate is fitted to; --history none: no replay of it before (the estimate
     then rests on the kernels before it in the list, or, for the first, on the prior);
  2. one sim replay at its default size: rprof's expectation before it ran (from the note of its
     sim_replay_s metric), against the time valgrind took.
Prints one line per kernel and the worst ratio. Every replay is `rprof run K --counters sim
--repeat 1`; wall times depend on the load of the machine, which this script does not control.

--programs: the programs are PROGRAMS below (what mix each stands for, how it is built: our own
sources in tests/bench/sim_programs/, STREAM and PolyBench/C cloned (--stream-src, --polybench-src:
a URL, or a local clone where there is no network) and built in a temporary folder, a program
whose tool is missing skipped with a line saying which Debian package has it). Each runs as
`rprof run --counters sim --repeat 1 --format json -o REPORT -- PROGRAM ARGS`, with a timeout, in
its own fresh copy of SEED.db (no history: its estimate comes from the program alone). Prints per
program its native wall and CPU time, the instructions sim counted, the expected and the measured
replay time, their ratio and the basis of the expectation; then the worst ratio. Exit 0 when every
selected program was measured and the worst ratio is at most 2.
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


# ---------------------------------------------------------------------------------------------
# --programs: ten programs of different instruction mixes, each replayed once with no history.

HERE = os.path.dirname(os.path.abspath(__file__))
OWN = os.path.join(HERE, "sim_programs")
STREAM_GIT = "https://github.com/jeffhammond/STREAM"
POLYBENCH_GIT = "https://github.com/MatthiasJReisinger/PolyBenchC-4.2.1"
AVX2 = ["-march=x86-64-v3"]  # never -march=native: AVX-512 code crashes valgrind 3.19


class Skip(Exception):
    """A program this machine cannot run (its tool is missing): reported, not measured."""


def need(tool, package):
    path = shutil.which(tool)
    if not path:
        raise Skip(f"{tool} not found (Debian: apt-get install {package})")
    return path


def compile_c(out, sources, flags, compiler="cc", libs=()):
    need(compiler, "gcc" if compiler == "cc" else "g++")
    cmd = [compiler, *flags, "-o", out, *sources, *libs]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"build failed: {' '.join(cmd)}\n{res.stderr.strip()}")
    return out


def fetch_source(src, dest, marker):
    """A checkout of `src` (a directory that holds `marker`, used as it is; else a git URL or a
    git directory, cloned into `dest`). Third-party code never enters this repository."""
    if os.path.isfile(os.path.join(src, marker)):
        return src
    need("git", "git")
    url = "file://" + os.path.abspath(src) if os.path.isdir(src) else src
    res = subprocess.run(["git", "clone", "-q", "--depth", "1", url, dest],
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0 or not os.path.isfile(os.path.join(dest, marker)):
        raise Skip(f"could not fetch {src} ({res.stderr.strip() or marker + ' missing'}); give a "
                   f"local clone with --{'stream' if 'stream' in marker else 'polybench'}-src")
    return dest


def generated_text(tmp, name, mib):
    """Deterministic text of `mib` MiB: lines of words drawn from a skewed vocabulary (it
    compresses like prose, about 3:1, and sorts with long common prefixes)."""
    path = os.path.join(tmp, name)
    if os.path.exists(path):
        return path
    import random
    rng = random.Random(24)
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    vocab = ["".join(rng.choice(letters[:rng.randint(6, 26)]) for _ in range(rng.randint(2, 11)))
             for _ in range(6000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    size, lines = int(mib * 2**20), []
    while size > 0:
        line = " ".join(rng.choices(vocab, weights, k=rng.randint(3, 14)))
        lines.append(line)
        size -= len(line) + 1
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def prog_gzip(tmp, opts):
    return [need("gzip", "gzip"), "-9", "-c", generated_text(tmp, "text.txt", 6)], {}


def prog_sort(tmp, opts):
    return ([need("sort", "coreutils"), "-S", "256M", "--parallel=1", "-f", "-k2,2", "-k4,4r",
             generated_text(tmp, "text.txt", 6)], {"LC_ALL": "C"})


def prog_sqlite(tmp, opts):
    sql = ("CREATE TABLE t(k INTEGER, v TEXT);"
           "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 150000) "
           "INSERT INTO t SELECT (x * 7919) % 10007, hex(x * 2654435761) FROM c;"
           "CREATE INDEX tk ON t(k);"
           "SELECT k % 97, count(*), max(v), sum(length(v)) FROM t GROUP BY k % 97 "
           "ORDER BY 2 DESC LIMIT 3;")
    return [need("sqlite3", "sqlite3"), ":memory:", sql], {}


def prog_memcpy(tmp, opts):
    exe = compile_c(os.path.join(tmp, "memcpy_heavy"), [os.path.join(OWN, "memcpy_heavy.c")],
                    ["-O2", *AVX2])
    return [exe, "3000"], {}


def prog_scalar_fp(tmp, opts):
    exe = compile_c(os.path.join(tmp, "scalar_fp"), [os.path.join(OWN, "scalar_fp.c")],
                    ["-O2", "-fno-tree-vectorize"])
    return [exe, "2.5e8"], {}


def prog_avx2_addmul(tmp, opts):
    exe = compile_c(os.path.join(tmp, "avx2_addmul"), [os.path.join(OWN, "avx2_addmul.c")],
                    ["-O3", *AVX2, "-mno-fma", "-ffp-contract=off"])
    return [exe, "200000"], {}


def prog_eigen(tmp, opts):
    inc = "/usr/include/eigen3"
    if not os.path.isfile(os.path.join(inc, "Eigen", "Dense")):
        raise Skip(f"Eigen headers not found in {inc} (Debian: apt-get install libeigen3-dev)")
    exe = compile_c(os.path.join(tmp, "eigen_gemm"), [os.path.join(OWN, "eigen_gemm.cc")],
                    ["-O2", *AVX2, "-DNDEBUG", "-I" + inc], compiler="c++")
    return [exe, "512", "2"], {}


def prog_numpy(tmp, opts):
    py = "/usr/bin/python3"
    if not os.access(py, os.X_OK):
        raise Skip(f"{py} not found (Debian: apt-get install python3)")
    if subprocess.run([py, "-c", "import numpy"], capture_output=True).returncode != 0:
        raise Skip(f"NumPy not importable by {py} (Debian: apt-get install python3-numpy)")
    code = ("import numpy as np; r = np.random.default_rng(1); a = r.random((400, 400)); "
            "b = r.random((400, 400)); c = sum((a @ b).sum() for _ in range(2)); print(c)")
    return [py, "-c", code], {}


def prog_stream(tmp, opts):
    src = fetch_source(opts.stream_src, os.path.join(tmp, "STREAM"), "stream.c")
    exe = compile_c(os.path.join(tmp, "stream"), [os.path.join(src, "stream.c")],
                    ["-O2", *AVX2, "-DSTREAM_ARRAY_SIZE=4000000", "-DNTIMES=10"])
    return [exe], {}


def prog_polybench(tmp, opts):
    src = fetch_source(opts.polybench_src, os.path.join(tmp, "PolyBenchC"),
                       "utilities/polybench.c")
    kernel = os.path.join(src, "stencils", "jacobi-2d")
    exe = compile_c(os.path.join(tmp, "jacobi-2d"),
                    [os.path.join(src, "utilities", "polybench.c"),
                     os.path.join(kernel, "jacobi-2d.c")],
                    ["-O2", *AVX2, "-fno-tree-vectorize", "-I" + os.path.join(src, "utilities"),
                     "-I" + kernel, "-DPOLYBENCH_TIME", "-DN=600", "-DTSTEPS=200"], libs=["-lm"])
    return [exe], {}


# name, the mix it stands for, its set-up (argv and extra environment)
PROGRAMS = [
    ("gzip", "integer, branchy: LZ77 match search, Huffman coding (gzip -9, 6 MiB of text)",
     prog_gzip),
    ("sort", "integer, branchy: key fields, case-folded compares (LC_ALL=C sort -f -k2,2 -k4,4r,"
     " 6 MiB)",
     prog_sort),
    ("sqlite3", "integer, interpreter: SQLite's bytecode engine on B-trees (insert, index, "
     "GROUP BY)", prog_sqlite),
    ("memcpy", "string ops: glibc memcpy/memset over L2-sized blocks (sim_programs/"
     "memcpy_heavy.c)", prog_memcpy),
    ("scalar-fp", "scalar FP: SSE2 add/mul/div in registers, -O2 -fno-tree-vectorize "
     "(sim_programs/scalar_fp.c)", prog_scalar_fp),
    ("avx2-addmul", "256-bit FP add/mul without FMA over L1-resident arrays "
     "(sim_programs/avx2_addmul.c)", prog_avx2_addmul),
    ("eigen-gemm", "FMA-heavy dense linear algebra: Eigen 512x512 GEMM x2, AVX2+FMA "
     "(sim_programs/eigen_gemm.cc)", prog_eigen),
    ("numpy-matmul", "FMA through OpenBLAS (its AVX2 kernel under --isa avx2) plus CPython's "
     "start-up: 400x400 @ x2", prog_numpy),
    ("stream", "memory-bound: STREAM copy/scale/add/triad, 3 x 32 MB arrays, AVX2",
     prog_stream),
    ("polybench-jacobi2d", "scalar FP with memory operands: PolyBench/C jacobi-2d N=600 "
     "T=200, -fno-tree-vectorize", prog_polybench),
]


def run_program(opts, db, tmp, argv, env_extra):
    """One `rprof run --counters sim` of argv; the report (JSON) or an exception."""
    report = os.path.join(tmp, "report.json")
    if os.path.exists(report):
        os.remove(report)
    cmd = [opts.rprof, "run", "--counters", "sim", "--repeat", "1", "--format", "json",
           "-o", report, "--", *argv]
    env = {**os.environ, **env_extra, "RPROF_DB": db}
    with open(os.path.join(tmp, "stderr.txt"), "w+") as err:
        # Its own session, so that a timeout stops rprof, valgrind and the program together.
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=tmp,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=opts.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            raise RuntimeError(f"timed out after {opts.timeout:g} s (--timeout)")
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        err.seek(0)
        stderr = err.read().strip()
    if rc != 0 or not os.path.exists(report):
        raise RuntimeError(f"rprof exited {rc}: " + "\n  ".join(stderr.splitlines()[-6:]))
    with open(report) as f:
        return json.load(f), stderr


def program_row(run):
    """(native s, cpu s, instructions, expected s, basis, measured s) of a program's run, or a
    RuntimeError saying what is missing (a replay that failed, counts that were dropped)."""
    metrics = run.get("metrics", {})
    native = (run.get("time") or {}).get("median_s")
    cpu = metrics.get("cpu_time_s", {}).get("clock", {}).get("value")
    instructions = metrics.get("instructions", {}).get("sim", {}).get("value")
    replay = metrics.get("sim_replay_s", {}).get("clock")
    if not replay or replay.get("value") is None:
        notes = [t.get("detail", "") for t in run.get("trust", [])]
        raise RuntimeError(f"no sim_replay_s in the run (status {run.get('status')}): "
                           + "; ".join(n for n in notes if n)[:400])
    match = EXPECTED.search(replay.get("note", ""))
    if not match:
        raise RuntimeError(f"no expectation in sim_replay_s's note: {replay.get('note')!r}")
    if instructions is None:
        raise RuntimeError("the replay ran but its sim counts were dropped (no instructions)")
    return native, cpu, instructions, float(match.group(1)), match.group(2), replay["value"]


def programs_main(argv):
    ap = argparse.ArgumentParser(prog="sim_estimate_table.py --programs",
                                 description="the sim estimate against valgrind's time, for "
                                 "programs of different instruction mixes (each within 2x)")
    ap.add_argument("--rprof", default="build/profiler/rprof")
    ap.add_argument("--db", help="a database to copy for each program (this machine's profile)")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds one program's rprof run (native and replay) may take")
    ap.add_argument("--stream-src", default=STREAM_GIT,
                    help="STREAM: a git URL or directory to clone, or a checkout to use")
    ap.add_argument("--polybench-src", default=POLYBENCH_GIT,
                    help="PolyBench/C 4.2.1: a git URL or directory to clone, or a checkout")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("programs", nargs="*", help="a subset, by name: "
                    + ", ".join(p[0] for p in PROGRAMS))
    opts = ap.parse_args(argv)
    opts.rprof = os.path.abspath(opts.rprof)
    unknown = set(opts.programs) - {p[0] for p in PROGRAMS}
    if unknown:
        ap.error(f"unknown program(s): {', '.join(sorted(unknown))}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = tempfile.mkdtemp(prefix="rprof-sim-programs-")
    selected = [p for p in PROGRAMS if not opts.programs or p[0] in opts.programs]
    print(f"{'program':19} {'native':>7} {'cpu':>6} {'instr':>7} {'expected':>9} {'measured':>9} "
          f"{'measured/':>9}  expectation from")
    print(f"{'':19} {'wall s':>7} {'s':>6} {'G':>7} {'s':>9} {'s':>9} {'expected':>9}")
    worst, worst_name, problems = 1.0, None, []
    try:
        for name, mix, setup in selected:
            db = os.path.join(tmp, f"{name}.db")
            if opts.db:
                shutil.copyfile(opts.db, db)
            try:
                argv_, env_extra = setup(tmp, opts)
                run, _ = run_program(opts, db, tmp, argv_, env_extra)
                native, cpu, instr, expected, basis, measured = program_row(run)
            except Skip as e:
                problems.append(name)
                print(f"{name:19} SKIPPED: {e}", flush=True)
                continue
            except (RuntimeError, OSError, ValueError, subprocess.SubprocessError) as e:
                problems.append(name)
                print(f"{name:19} FAILED: " + str(e).replace("\n", "\n" + " " * 20), flush=True)
                continue
            ratio = measured / expected
            if max(ratio, 1 / ratio) > worst:
                worst, worst_name = max(ratio, 1 / ratio), name
            print(f"{name:19} {native:7.3f} {cpu if cpu is not None else float('nan'):6.3f} "
                  f"{instr / 1e9:7.2f} {expected:9.1f} {measured:9.1f} {ratio:9.2f}  {basis}",
                  flush=True)
    finally:
        if opts.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("mixes:")
    for name, mix, _ in selected:
        print(f"  {name:19} {mix}")
    measured_n = len(selected) - len(problems)
    print(f"worst: {worst:.2f}x" + (f" ({worst_name})" if worst_name else "")
          + f"; {measured_n} of {len(selected)} programs measured"
          + (f" (not: {', '.join(problems)})" if problems else ""))
    return 0 if worst <= 2.0 and not problems else 1



def main():
    if "--programs" in sys.argv[1:]:
        return programs_main([a for a in sys.argv[1:] if a != "--programs"])
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
