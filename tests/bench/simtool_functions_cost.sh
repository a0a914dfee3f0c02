#!/bin/sh
# What per-function attribution costs a replay (issue 28): rprofsim's wall time for the same
# program with --functions off and --functions 10 (which adds --rprofsim-functions=yes: each
# instruction's function and line looked up once, at translation), interleaved, 3 each, from
# the sim_replay_s the run stores.
#   tests/bench/simtool_functions_cost.sh BUILD_DIR [ROUNDS]
set -eu
build=${1:?usage: $0 BUILD_DIR [ROUNDS]}
rounds=${2:-3}
rprof=$build/profiler/rprof
program=$build/tests/cli_targets/hot_functions
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RPROF_DB=$tmp/runs.db
i=0
while [ "$i" -lt "$rounds" ]; do
  for functions in off 10; do
    "$rprof" run --counters sim --functions "$functions" --format json -o "$tmp/run.json" \
      "$program" 40 10 >/dev/null 2>&1
    python3 -c "import json, sys; d = json.load(open(sys.argv[1])); \
print(sys.argv[2], d['metrics']['sim_replay_s']['clock']['value'])" "$tmp/run.json" "$functions"
  done
  i=$((i + 1))
done
