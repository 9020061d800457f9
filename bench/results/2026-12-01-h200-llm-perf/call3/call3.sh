#!/usr/bin/env bash
# Call 3 (final): GPU tests of the final plugin (b3 = lib/libkwb_gpu_backend.so), decode attention
# GB/s before (base.so = main) and after beside torch SDPA, the copy ceiling, tiny_llm graph off/on
# at 1.7 and 3.4 GB before and after (and b2.so, b3g.so: the call-2 plugin and b3 with k-split 1),
# per-kernel ncu (real clocks, no cache flush) of the final decode step.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}; r=$out/r; mkdir -p "$r/studies"
export LD_LIBRARY_PATH="$here/deps:${LD_LIBRARY_PATH:-}"
b3=$here/lib/libkwb_gpu_backend.so; L=$here/lib
export KWB_GPU_BACKEND=$b3
for d in /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
  f=$(find "$d" -maxdepth 5 -name 'libcublasLt.so.13*' 2>/dev/null | head -1); [ -n "$f" ] && { export KWB_CUBLASLT="$f"; break; }
done
kwb=$here/bin/kwb; ncu=/usr/local/cuda/bin/ncu
{ echo "date: $(date -u +%FT%TZ)"; echo "commit: $(cat "$here/COMMIT")"; echo "cublaslt: ${KWB_CUBLASLT:-none}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,temperature.gpu,power.draw,power.limit --format=csv
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$r/env.txt" 2>&1
T() { echo "$1: $(( $(date +%s) - t0 )) s, rc $2" >> "$r/stages.txt"; }
t0=$(date +%s)
for t in gpu_attention_decode gpu_tiny_llm gpu_attention_prefill; do
  timeout 120 "$here/bin/$t" > "$r/$t.log" 2>&1; echo "$t (b3): exit $?" >> "$r/gpu-tests.txt"; done
KWB_GPU_BACKEND=$L/b3g.so timeout 120 "$here/bin/gpu_tiny_llm" > "$r/gpu_tiny_llm-b3g.log" 2>&1; echo "gpu_tiny_llm (b3g): exit $?" >> "$r/gpu-tests.txt"
T tests 0
t0=$(date +%s); timeout 60 "$here/bin/kwb_gpu_bench" decode > "$r/bench-decode.json" 2> "$r/bench-decode.log"; T "decode b3" $?
t0=$(date +%s); timeout 60 python3 "$here/torch_attention.py" decode > "$r/torch-attention.json" 2> "$r/torch-attention.log"; T torch-attention $?
t0=$(date +%s); KWB_GPU_BACKEND=$L/base.so timeout 60 "$here/bin/kwb_gpu_bench" decode > "$r/bench-decode-base.json" 2> "$r/bench-decode-base.log"; T "decode base" $?
t0=$(date +%s); timeout 40 "$kwb" calibrate --json > "$r/calibrate.json" 2> "$r/calibrate.log"; T calibrate $?
tiny() { # name plugin runs extra...
  local name=$1 plugin=$2 runs=$3; shift 3
  t0=$(date +%s)
  "$kwb" new --workload tiny_llm --backend cuda --vary cuda_graph=off,on --metric itl_p50_ms --guard ttft_ms --guard tok_s \
    --runs "$runs" --min-rep-ms 0 "$@" --out "$r/studies/$name.json" --force > "$r/studies/$name.new.txt" 2>&1 &&
  KWB_GPU_BACKEND=$plugin timeout 70 "$kwb" run "$r/studies/$name.json" --no-cupti > "$r/studies/$name.run.txt" 2>&1
  T "tiny $name" $?
}
big=(--param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
tiny after-1.7gb "$b3" 10; tiny after-3.4gb "$b3" 10 "${big[@]}"
tiny before-1.7gb "$L/base.so" 10 --param splits=1; tiny before-3.4gb "$L/base.so" 10 --param splits=1 "${big[@]}"
tiny b3g-1.7gb "$L/b3g.so" 4; tiny b3g-3.4gb "$L/b3g.so" 4 "${big[@]}"
tiny b2-1.7gb "$L/b2.so" 4; tiny b2-3.4gb "$L/b2.so" 4 "${big[@]}"
python3 "$here/summ.py" "$r"/studies/*.json > "$r/tiny-summary.txt" 2>&1
t0=$(date +%s)
"$kwb" new --workload tiny_llm --backend cuda --vary cuda_graph=off,on --runs 2 --warmup 0 --min-rep-ms 0 \
  --param requests=2 --param gen_tokens=24 --out "$r/t.json" --force >> "$r/kwbnew.log" 2>&1
timeout 60 "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum,launch__grid_size,dram__bytes_read.sum \
  --launch-skip 6000 --launch-count 300 --csv "$kwb" run "$r/t.json" --no-cupti > "$r/ncu-step-1.7gb.csv" 2> "$r/ncu-step.err"; T "ncu step" $?
rm -f "$r/t.json"
tar -C "$out" -czf "$out/final.tgz" r && rm -rf "$r"
