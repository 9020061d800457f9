#!/usr/bin/env bash
# ITL call 4 (final): gpu_tiny_llm, the copy ceiling, graph off/on of new and base (main) at 1.7 and
# 3.4 GB, pdl off vs on and gemv_blocks_per_sm 0 vs 3 (graph on), and ncu per-kernel times of one
# decode step of each size.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}; r=$out/r; mkdir -p "$r/studies"
. "$here/gpu_env.sh"
new=$here/lib/libkwb_gpu_backend.so; base=$here/lib/base.so
kwb=$here/bin/kwb; ncu=/usr/local/cuda/bin/ncu
{ echo "date: $(date -u +%FT%TZ)"; echo "commit: $(cat "$here/COMMIT")"; echo "cublaslt: ${KWB_CUBLASLT:-none}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,temperature.gpu,power.draw,power.limit --format=csv
  nvcc --version 2>/dev/null | tail -2; } > "$r/env.txt" 2>&1
T() { echo "$1: $(( $(date +%s) - t0 )) s, rc $2" >> "$r/stages.txt"; }
t0=$(date +%s); timeout 150 "$here/bin/gpu_tiny_llm" > "$r/gpu_tiny_llm.log" 2>&1; T gpu_tiny_llm $?
t0=$(date +%s); timeout 40 "$kwb" calibrate --json > "$r/calibrate.json" 2> "$r/calibrate.log"; T calibrate $?
big=(--param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
study() { # name plugin vary runs extra...
  local name=$1 plugin=$2 vary=$3 runs=$4; shift 4
  t0=$(date +%s)
  "$kwb" new --workload tiny_llm --backend cuda --vary "$vary" --metric itl_p50_ms --guard ttft_ms --guard tok_s \
    --runs "$runs" --min-rep-ms 0 "$@" --out "$r/studies/$name.json" --force > "$r/studies/$name.new.txt" 2>&1 &&
  KWB_GPU_BACKEND=$plugin timeout 80 "$kwb" run "$r/studies/$name.json" --no-cupti > "$r/studies/$name.run.txt" 2>&1
  T "study $name" $?
}
study new-1.7gb "$new" cuda_graph=off,on 10
study new-3.4gb "$new" cuda_graph=off,on 10 "${big[@]}"
study base-1.7gb "$base" cuda_graph=off,on 10
study base-3.4gb "$base" cuda_graph=off,on 10 "${big[@]}"
study pdl-1.7gb "$new" pdl=off,on 10 --param cuda_graph=on
study pdl-3.4gb "$new" pdl=off,on 10 --param cuda_graph=on "${big[@]}"
study wave-1.7gb "$new" gemv_blocks_per_sm=0,3 6 --param cuda_graph=on
study wave-3.4gb "$new" gemv_blocks_per_sm=0,3 6 --param cuda_graph=on "${big[@]}"
python3 "$here/summ.py" "$r"/studies/*.json > "$r/tiny-summary.txt" 2>&1
prof() { # name extra...
  local name=$1; shift
  t0=$(date +%s)
  "$kwb" new --workload tiny_llm --backend cuda --vary pdl=off,on --runs 1 --warmup 0 --min-rep-ms 0 \
    --param requests=2 --param gen_tokens=128 "$@" --out "$r/p-$name.json" --force >> "$r/kwbnew.log" 2>&1
  timeout 60 "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum,launch__grid_size,dram__bytes_read.sum \
    --launch-skip 12000 --launch-count 400 --csv "$kwb" run "$r/p-$name.json" --no-cupti > "$r/ncu-$name.csv" 2> "$r/ncu-$name.err"
  T "ncu $name" $?; rm -f "$r/p-$name.json"
}
prof 1.7gb; prof 3.4gb "${big[@]}"
gzip "$r"/ncu-*.csv
tar -C "$out" -czf "$out/itl4.tgz" r && rm -rf "$r"
