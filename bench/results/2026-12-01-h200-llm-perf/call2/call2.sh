#!/usr/bin/env bash
# Call 2: the gather / tiny_llm fixes: GPU tests, decode bench, ncu (new mma/simt, old mma), tiny_llm
# old (base.so, splits 1) vs new plugin, per-kernel ncu of the new decode step.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}; r=$out/r; mkdir -p "$r"
export LD_LIBRARY_PATH="$here/deps:${LD_LIBRARY_PATH:-}"
new=$here/lib/libkwb_gpu_backend.so; base=$here/lib/base.so
export KWB_GPU_BACKEND=$new
for d in /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
  f=$(find "$d" -maxdepth 5 -name 'libcublasLt.so.13*' 2>/dev/null | head -1); [ -n "$f" ] && { export KWB_CUBLASLT="$f"; break; }
done
kwb=$here/bin/kwb; ncu=/usr/local/cuda/bin/ncu
{ date -u; cat "$here/COMMIT"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv; } > "$r/env.txt" 2>&1
T() { echo "$1 $(( $(date +%s) - t0 )) s rc $2" >> "$r/env.txt"; }
t0=$(date +%s); for t in gpu_attention_decode gpu_tiny_llm; do timeout 120 "$here/bin/$t" > "$r/$t.log" 2>&1; echo "$t exit $?" >> "$r/env.txt"; done; T tests 0
t0=$(date +%s); timeout 60 "$here/bin/kwb_gpu_bench" decode > "$r/bench-decode.json" 2> "$r/bench-decode.log"; T bench $?
w=$(mktemp -d)
prof() { # name plugin impl
  "$kwb" new --workload attention_decode --backend cuda --param batch=64 --param context=8192 --param length_spread=0 \
    --param stages=2 --param impl=$3 --vary seed=1,2 --runs 2 --warmup 0 --min-rep-ms 0 --out "$w/$1.json" --force >> "$r/kwbnew.log" 2>&1
  t0=$(date +%s)
  KWB_GPU_BACKEND=$2 timeout 60 "$ncu" --set full --print-details all --import-source no --kernel-name "regex:decode_(mma_)?kernel" \
    --launch-skip 1 --launch-count 1 "$kwb" run "$w/$1.json" --no-cupti > "$r/ncu-$1.txt" 2> "$r/ncu-$1.err"
  T "ncu $1" $?
}
prof new-mma "$new" mma; prof new-simt "$new" simt; prof old-mma "$base" mma
tiny() { # name plugin extra...
  local name=$1 plugin=$2; shift 2
  "$kwb" new --workload tiny_llm --backend cuda --vary cuda_graph=off,on --metric itl_p50_ms --guard ttft_ms --guard tok_s \
    --runs 4 --min-rep-ms 0 --param requests=4 "$@" --out "$w/$name.json" --force >> "$r/kwbnew.log" 2>&1
  t0=$(date +%s); KWB_GPU_BACKEND=$plugin timeout 60 "$kwb" run "$w/$name.json" > "$r/$name.run.txt" 2>&1; T "tiny $name" $?
}
big=(--param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
tiny old-1.7 "$base" --param splits=1; tiny new-1.7 "$new"; tiny old-3.4 "$base" --param splits=1 "${big[@]}"; tiny new-3.4 "$new" "${big[@]}"
python3 "$here/summ.py" "$w"/old-1.7.json "$w"/new-1.7.json "$w"/old-3.4.json "$w"/new-3.4.json > "$r/tiny-summary.txt" 2>&1
t0=$(date +%s)
"$kwb" new --workload tiny_llm --backend cuda --vary cuda_graph=off,on --runs 2 --warmup 0 --min-rep-ms 0 \
  --param requests=2 --param gen_tokens=24 --out "$w/t.json" --force >> "$r/kwbnew.log" 2>&1
timeout 90 "$ncu" --metrics gpu__time_duration.sum,launch__grid_size,dram__bytes_read.sum --launch-skip 6000 --launch-count 300 \
  --csv "$kwb" run "$w/t.json" --no-cupti > "$r/ncu-t-new.csv" 2> "$r/ncu-t-new.err"; T "ncu tiny" $?
tar -C "$out" -czf "$out/call2.tgz" r && rm -rf "$r"
