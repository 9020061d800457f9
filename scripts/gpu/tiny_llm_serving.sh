#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tiny_llm's serving variants on the GPU machine, from a packed folder (scripts/gpu/pack.sh, this
# file beside run-all.sh): the GPU test, then KV cache bf16 vs fp8 A/B studies (target
# itl_p50_ms, guards ttft_ms and tok_s, CUDA graphs on) with requests one after another and with
# Poisson arrivals into the continuously batched loop. Everything lands in $OUT/tiny_llm_serving.tar.gz.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}
work=$(mktemp -d)
. "$here/gpu_env.sh"
kwb="$here/bin/kwb"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; cat "$here/COMMIT"; date -u; } \
  > "$work/env.txt" 2>&1
s0=$(date +%s)
timeout 110 "$here/bin/gpu_tiny_llm" > "$work/gpu_tiny_llm.txt" 2>&1
echo "gpu_tiny_llm exit $? ($(( $(date +%s) - s0 )) s)" >> "$work/env.txt"
study() {   # name, extra kwb new arguments...
  local name=$1; shift
  local t0=$(date +%s)
  timeout 20 "$kwb" new --workload tiny_llm --backend cuda --vary kv_dtype=bf16,fp8 --metric itl_p50_ms \
    --guard ttft_ms --guard tok_s --runs 10 --min-rep-ms 0 --param cuda_graph=on "$@" --out "$work/$name.json" \
    --force > "$work/$name.new.txt" 2>&1 &&
    timeout 60 "$kwb" run "$work/$name.json" > "$work/$name.run.txt" 2>&1
  echo "$name exit $? ($(( $(date +%s) - t0 )) s)" >> "$work/env.txt"
}
study kv-sequential
study kv-poisson --param arrivals=poisson --param rate=50 --param max_batch=8 --param requests=16
date -u >> "$work/env.txt"
tar -C "$work" -czf "$out/tiny_llm_serving.tar.gz" .
