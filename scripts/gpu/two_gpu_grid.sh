#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 17, run by run-all.sh's `grid2` stage from a packed folder on a machine with two GPUs: one
# 2x2 GEMM grid (block_n 64,128 x stages 3,4 at 8192^3, impl tiled, --runs N per arm) run to its
# verdicts twice over, alternating: with `kwb run --devices 0,1` (a worker per GPU) and with
# `kwb run --device 0` (one GPU), each from a fresh copy of the same study. Wall-clock seconds
# of each run (date +%s.%N around kwb) and every cell's verdict, delta, CI and GPU go to
# $OUT/grid2/summary.json (scripts/gpu/summarise_grid2.py).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-$PWD/gpu-out}}
runs=${KWB_GRID_RUNS:-30}
repeats=${KWB_GRID_REPEATS:-2}
kwb="$here/bin/kwb"
dir="$out/grid2"
mkdir -p "$dir"
status=0
base="$dir/grid.json"
"$kwb" new --workload gemm --param m=8192 --param n=8192 --param k=8192 --grid block_n=64,128 --grid stages=3,4 \
  --backend cuda --runs "$runs" --out "$base" --force 2> "$dir/new.log" || { cat "$dir/new.log" >&2; exit 1; }
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > "$dir/gpus.csv" 2>&1
: > "$dir/times.txt"
for i in $(seq 1 "$repeats"); do
  for mode in two-gpus one-gpu; do
    s="$dir/$mode-$i.json"
    cp "$base" "$s"
    if [ "$mode" = two-gpus ]; then args=(--devices 0,1); else args=(--device 0); fi
    t0=$(date +%s.%N)
    "$kwb" run "$s" "${args[@]}" > "$dir/$mode-$i.txt" 2> "$dir/$mode-$i.log"
    rc=$?
    t1=$(date +%s.%N)
    echo "$mode $i rc=$rc wall_s=$(awk "BEGIN {printf \"%.3f\", $t1 - $t0}")" | tee -a "$dir/times.txt"
    [ $rc -eq 0 ] || status=1
  done
done
python3 "$here/summarise_grid2.py" "$dir" > "$dir/summary.json" 2> "$dir/summary.log" || status=1
cat "$dir/summary.json"
exit $status
