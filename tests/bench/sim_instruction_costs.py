#!/usr/bin/env python3
"""valgrind's cost per executed instruction under rprof's sim source, one instruction class at a
time, on the machine it runs on: the figures counters/sim/replay_cost.cc expects a replay from.

    tests/bench/sim_instruction_costs.py [--rprof build/profiler/rprof] [--db SEED.db] [CLASS...]

Most classes are a loop of 8 instructions of that class and 2 of loop control, assembled inline
(cc -O1); *_l1_miss add a pointer step after each access (16 a loop, and the C loop's own),
call_ret and rep_movsb_4k are C loops around 4 indirect calls and one rep movsb of 4 KiB. Each
runs twice under `rprof run --counters sim` (a fresh database per run), at N and 5N iterations,
so that valgrind's start-up and the program's own set-up cancel:
  valgrind ns per instruction = (replay time at 5N - at N) / (sim instructions at 5N - at N),
  native ns per instruction   = the same of the native CPU time (cpu_time_s).
An 8-instruction class's own instruction then costs (its figure x 10 - 2 x int's) / 8; a REP
iteration counts as an instruction (valgrind executes one per element). Prints one line per
class. Times depend on the load of the machine: run it quiet.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

SOURCE = r"""
#include <stdlib.h>
#include <string.h>
// One asm statement per class: registers set to ordinary values first (valgrind's software FMA
// is value-dependent: zeros take a fast path), then n iterations of 8 instructions of the class
// and 2 of loop control. ymm8 = 1 - 1e-9 (a multiplier), ymm9 = 1e-9 (an addend), ymm0-7 = 1.
#define LOOP(body, ...)                                                                    \
  __asm__ volatile("vbroadcastsd %[m], %%ymm8\n vbroadcastsd %[p], %%ymm9\n"             \
                   "vbroadcastsd %[one], %%ymm0\n vmovapd %%ymm0, %%ymm1\n"              \
                   "vmovapd %%ymm0, %%ymm2\n vmovapd %%ymm0, %%ymm3\n"                   \
                   "vmovapd %%ymm0, %%ymm4\n vmovapd %%ymm0, %%ymm5\n"                   \
                   "vmovapd %%ymm0, %%ymm6\n vmovapd %%ymm0, %%ymm7\n"                   \
                   "1:\n" body "dec %[n]\n jnz 1b\n"                                     \
                   : [n] "+r"(n)                                                         \
                   : [m] "m"(m), [p] "m"(p), [one] "m"(one), [buf] "r"(buf)              \
                   : "memory", "cc", "rax", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", \
                     "xmm6", "xmm7", "xmm8", "xmm9")
#define X8(a, b) a "\n" b "\n" a "\n" b "\n" a "\n" b "\n" a "\n" b "\n"
static void ret_only(void) {}
int main(int argc, char **argv) {
  long n = atol(argv[2]);
  const char *k = argv[1];
  static char buf[2 * 4096] __attribute__((aligned(64)));
  const double m = 1 - 1e-9, p = 1e-9, one = 1;
  void (*volatile fn)(void) = ret_only;
  if (!strcmp(k, "int"))
    LOOP("add %%rax, %%rax\n add %%rcx, %%rax\n add %%rax, %%rax\n add %%rcx, %%rax\n"
         "xor %%rax, %%rax\n add %%rcx, %%rax\n xor %%rax, %%rax\n add %%rcx, %%rax\n");
  else if (!strcmp(k, "fp_scalar"))
    LOOP("addsd %%xmm9, %%xmm0\n mulsd %%xmm8, %%xmm1\n addsd %%xmm9, %%xmm2\n"
         "mulsd %%xmm8, %%xmm3\n addsd %%xmm9, %%xmm4\n mulsd %%xmm8, %%xmm5\n"
         "addsd %%xmm9, %%xmm6\n mulsd %%xmm8, %%xmm7\n");
  else if (!strcmp(k, "fp_256"))
    LOOP("vaddpd %%ymm9, %%ymm0, %%ymm0\n vmulpd %%ymm8, %%ymm1, %%ymm1\n"
         "vaddpd %%ymm9, %%ymm2, %%ymm2\n vmulpd %%ymm8, %%ymm3, %%ymm3\n"
         "vaddpd %%ymm9, %%ymm4, %%ymm4\n vmulpd %%ymm8, %%ymm5, %%ymm5\n"
         "vaddpd %%ymm9, %%ymm6, %%ymm6\n vmulpd %%ymm8, %%ymm7, %%ymm7\n");
  else if (!strcmp(k, "fma_64_256"))
    LOOP(X8("vfmadd132pd %%ymm8, %%ymm9, %%ymm0", "vfmadd132pd %%ymm8, %%ymm9, %%ymm1"));
  else if (!strcmp(k, "fma_32_256"))
    LOOP(X8("vfmadd132ps %%ymm8, %%ymm9, %%ymm0", "vfmadd132ps %%ymm8, %%ymm9, %%ymm1"));
  else if (!strcmp(k, "fma_64_scalar"))
    LOOP(X8("vfmadd132sd %%xmm8, %%xmm9, %%xmm0", "vfmadd132sd %%xmm8, %%xmm9, %%xmm1"));
  else if (!strcmp(k, "load"))
    LOOP(X8("mov 64(%[buf]), %%rax", "mov 128(%[buf]), %%rax"));
  else if (!strcmp(k, "store"))
    LOOP(X8("mov %%rax, 64(%[buf])", "mov %%rax, 128(%[buf])"));
  else if (!strcmp(k, "load_256"))
    LOOP(X8("vmovapd 64(%[buf]), %%ymm0", "vmovapd 128(%[buf]), %%ymm1"));
  else if (!strcmp(k, "load_l1_miss") || !strcmp(k, "store_l1_miss")) {
    // 8-byte accesses a line apart through 4 MiB: each misses L1 (and L2), hits the L3.
    char *big = malloc(4 << 20);
    memset(big, 1, 4 << 20);
    int store = k[0] == 's';
    for (long i = 0, at = 0; i < n; i++) {
      char *q = big + at;
#define NEXT_LINE(a) X8(a "\n add $64, %[q]", a "\n add $64, %[q]")
      if (store)
        __asm__ volatile(NEXT_LINE("mov %%rax, (%[q])") : [q] "+r"(q) :: "rax", "memory");
      else
        __asm__ volatile(NEXT_LINE("mov (%[q]), %%rax") : [q] "+r"(q) :: "rax", "memory");
      at = (at + 16 * 64) & ((4 << 20) - 1);
    }
  }
  else if (!strcmp(k, "call_ret"))
    for (long i = 0; i < n; i++) { fn(); fn(); fn(); fn(); }
  else if (!strcmp(k, "rep_movsb_4k"))
    for (long i = 0; i < n; i++) {
      void *d = buf, *s = buf + 4096; long c = 4096;
      __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) :: "memory");
    }
  else
    return 2;
  return 0;
}
"""

# Iterations at N (the run at 5N follows): replays of 1-5 s at 5N on this project's Xeon VM.
CLASSES = {
    "int": 40_000_000, "fp_scalar": 40_000_000, "fp_256": 10_000_000, "fma_64_256": 100_000,
    "fma_32_256": 1_000_000, "fma_64_scalar": 400_000, "load": 20_000_000, "store": 20_000_000,
    "load_256": 10_000_000, "load_l1_miss": 2_000_000, "store_l1_miss": 2_000_000,
    "call_ret": 10_000_000, "rep_movsb_4k": 20_000,
}


def run(rprof, db_seed, tmp, args):
    db = os.path.join(tmp, "runs.db")
    if os.path.exists(db):
        os.remove(db)
    if db_seed:
        shutil.copyfile(db_seed, db)
    report = os.path.join(tmp, "run.json")
    subprocess.run([rprof, "run", "--counters", "sim", "--repeat", "1", "--format", "json",
                    "-o", report, "--", *args], check=True, capture_output=True,
                   env={**os.environ, "RPROF_DB": db})
    with open(report) as f:
        m = json.load(f)["metrics"]
    return (m["sim_replay_s"]["clock"]["value"], m["cpu_time_s"]["clock"]["value"],
            m["instructions"]["sim"]["value"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rprof", default="build/profiler/rprof")
    ap.add_argument("--db", help="a database with this machine's profile to copy")
    ap.add_argument("classes", nargs="*")
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rprof-sim-costs-")
    try:
        src = os.path.join(tmp, "loops.c")
        with open(src, "w") as f:
            f.write(SOURCE)
        exe = os.path.join(tmp, "loops")
        subprocess.run(["cc", "-O1", "-march=x86-64-v3", "-o", exe, src], check=True)
        print(f"{'class':14} {'valgrind':>9} {'native':>8} {'slowdown':>9}  (ns per loop "
              f"instruction; the class's own: see the docstring)")
        for name, n in CLASSES.items():
            if opts.classes and name not in opts.classes:
                continue
            t1, c1, i1 = run(opts.rprof, opts.db, tmp, [exe, name, str(n)])
            t5, c5, i5 = run(opts.rprof, opts.db, tmp, [exe, name, str(5 * n)])
            ins = i5 - i1
            vg_ns, native_ns = 1e9 * (t5 - t1) / ins, 1e9 * (c5 - c1) / ins
            print(f"{name:14} {vg_ns:9.3f} {native_ns:8.3f} {vg_ns / max(native_ns, 1e-9):9.1f}",
                  flush=True)
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
