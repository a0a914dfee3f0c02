#!/bin/sh
# rprofsim against callgrind --cache-sim=yes on the sim source's own replays (rprof-sim-runner:
# one warm-up and one counted call of the kernel's AVX2 build), the options rprof gives each:
# median wall seconds of REPS runs, one sitting, tools alternating so load affects both alike.
#
#   [SIZES=effective|reported] tests/bench/simtool_vs_callgrind.sh BUILD_DIR [REPS]
#                                                         (default: effective, build, 3)
#
# Prints one line per kernel: callgrind's median, rprofsim's median, and their ratio.
#
# On this project's 2-vCPU Xeon VM, 2026-12-01, one sitting (load 1.6-3.7 from other work):
#   effective: triad n=1e7 callgrind 2.72 s, rprofsim 1.55 s (1.76x); matmul-naive n=256
#              1.54 s, 0.98 s (1.57x)
#   reported:  triad n=1e7 2.85 s, 1.77 s (1.60x); matmul-naive n=256 1.54 s, 0.76 s (2.01x)
# 2026-12-07, 5 reps, the tool before and after its faster lookups (an unrolled scan per usual
# associativity that checks the least recently used way first, the levels below L1 walked
# without recursion, no call for a clean victim nobody takes, an L1 miss going on from the set
# the inline check found, an FMA operand's four loads one access), one sitting, load 1.5-2.3:
#   effective: before triad 3.33 s, 1.89 s (1.76x); matmul-naive 1.81 s, 1.14 s (1.60x)
#              after  triad 3.36 s, 1.64 s (2.06x); matmul-naive 1.78 s, 0.88 s (2.03x)
#   reported:  before triad 3.43 s, 2.18 s (1.58x); matmul-naive 1.81 s, 0.94 s (1.93x)
#              after  triad 3.27 s, 1.85 s (1.76x); matmul-naive 1.79 s, 0.73 s (2.45x)
set -eu
build=${1:-build}
reps=${2:-3}
runner=$build/profiler/rprof-sim-runner
tool=$build/profiler/counters/simtool/rprofsim-amd64-linux
[ -x "$runner" ] && [ -x "$tool" ] || { echo "build $build first (rprof-sim-runner, rprofsim)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/vglib"
ln -s /usr/libexec/valgrind/* "$tmp/vglib/"
ln -s "$(readlink -f "$tool")" "$tmp/vglib/rprofsim-amd64-linux"
# The hierarchy to simulate, as rprof passes it (callgrind needs a power-of-two set count, its LL
# rounded down; rprofsim takes every level as it is):
#   effective (default): what `rprof machine measure` found on this project's Xeon VM (L1 45 KiB,
#     L2 512 KiB, L3 16 MiB), what `rprof run --counters sim` simulates once a profile exists;
#   reported: sysfs's (L1 48 KiB, L2 2 MiB, L3 480 MiB, the host's), --sim-cache reported.
case ${SIZES:-effective} in
  effective) l1=46080,12,64 l2=524288,16,64 l3=16777216,16,64 d1=49152,12,64 ll=16777216,16,64 ;;
  reported) l1=49152,12,64 l2=2097152,16,64 l3=503316480,16,64 d1=49152,12,64 ll=268435456,16,64 ;;
  *) echo "SIZES=effective or reported" >&2; exit 2 ;;
esac

seconds() {  # wall seconds of a command
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

for kernel in "triad 10000000" "matmul-naive 256"; do
  : >"$tmp/cg" && : >"$tmp/rs"
  i=0
  while [ $i -lt "$reps" ]; do
    seconds valgrind --tool=callgrind --cache-sim=yes --dump-instr=yes --collect-atstart=no \
      --simulate-wb=yes --D1=$d1 --LL=$ll --callgrind-out-file="$tmp/cg.out" \
      --log-file="$tmp/cg.log" $runner $kernel >>"$tmp/cg"
    VALGRIND_LIB=$tmp/vglib seconds valgrind --tool=rprofsim --collect-atstart=no \
      --cache=$l1 --cache=$l2,non-inclusive --cache=$l3,non-inclusive \
      --rprofsim-out-file="$tmp/rs.out" --log-file="$tmp/rs.log" $runner $kernel >>"$tmp/rs"
    i=$((i + 1))
  done
  cg=$(median <"$tmp/cg")
  rs=$(median <"$tmp/rs")
  printf '%-18s callgrind %6.2f s   rprofsim %6.2f s   callgrind/rprofsim %.2fx  (median of %d)\n' \
    "$kernel" "$cg" "$rs" "$(echo "$cg / $rs" | bc -l)" "$reps"
done
