#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tiny_llm on the GPU machine, from a packed folder (scripts/gpu/pack.sh, then this file copied
# beside run-all.sh): the GPU test, then CUDA graph off vs on A/B studies (target itl_p50_ms,
# guards ttft_ms and tok_s) at the default model (1.7 GB of bf16 weights) and at a 3.4 GB one,
# then the copy ceiling (kwb calibrate) for the ITL bound. Everything lands in $OUT/tiny_llm.tar.gz.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}
work=$(mktemp -d)
. "$here/gpu_env.sh"
kwb="$here/bin/kwb"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; cat "$here/COMMIT"; date -u; } \
  > "$work/env.txt" 2>&1
timeout 100 "$here/bin/gpu_tiny_llm" > "$work/gpu_tiny_llm.txt" 2>&1
echo "gpu_tiny_llm exit $?" >> "$work/env.txt"
study() {   # name, extra kwb new arguments...
  local name=$1; shift
  timeout 20 "$kwb" new --workload tiny_llm --backend cuda --vary cuda_graph=off,on --metric itl_p50_ms \
    --guard ttft_ms --guard tok_s --runs 10 --min-rep-ms 0 "$@" --out "$work/$name.json" --force \
    > "$work/$name.new.txt" 2>&1 &&
    timeout 70 "$kwb" run "$work/$name.json" > "$work/$name.run.txt" 2>&1
  echo "$name exit $?" >> "$work/env.txt"
}
study graph-default
timeout 30 "$kwb" calibrate --json > "$work/calibrate.json" 2> "$work/calibrate.log"
study graph-3gb --param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008
tar -C "$work" -czf "$out/tiny_llm.tar.gz" .
