#!/usr/bin/env bash
# Call 1 (diagnosis): decode bench (extra page-size variants), ncu of the decode kernels at batch 64 / 8k,
# nsys (or ncu) per-kernel times of tiny_llm decode steps at batch 1.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}; r=$out/r; mkdir -p "$r"
export LD_LIBRARY_PATH="$here/deps:${LD_LIBRARY_PATH:-}"
export KWB_GPU_BACKEND="$here/lib/libkwb_gpu_backend.so"
for d in /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
  f=$(find "$d" -maxdepth 5 -name 'libcublasLt.so.13*' 2>/dev/null | head -1); [ -n "$f" ] && { export KWB_CUBLASLT="$f"; break; }
done
kwb=$here/bin/kwb
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
{ date -u; cat "$here/COMMIT"; echo "ncu=$ncu nsys=$nsys"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv; } > "$r/env.txt" 2>&1
t0=$(date +%s)
timeout 60 "$here/bin/kwb_gpu_bench" decode > "$r/bench-decode.json" 2> "$r/bench-decode.log"
echo "decode bench $(( $(date +%s) - t0 )) s" >> "$r/env.txt"
# ncu of each decode kernel, batch 64, 8k, page 16, stages 2
w=$(mktemp -d)
"$kwb" new --workload attention_decode --backend cuda --param batch=64 --param context=8192 --param length_spread=0 \
  --param stages=2 --vary impl=simt,mma --runs 2 --warmup 0 --min-rep-ms 0 --out "$w/d.json" --force > "$r/kwbnew.log" 2>&1
for k in decode_kernel decode_mma_kernel; do
  t0=$(date +%s)
  timeout 90 "$ncu" --set full --import-source no --kernel-name "regex:^${k}\$|${k}<" --launch-skip 1 --launch-count 1 \
    "$kwb" run "$w/d.json" --no-cupti > "$r/ncu-$k.txt" 2> "$r/ncu-$k.err"
  echo "ncu $k $(( $(date +%s) - t0 )) s rc $?" >> "$r/env.txt"
done
# tiny_llm per-kernel: graph off, 2 requests, 24 tokens
for model in default 3gb; do
  extra=(); [ $model = 3gb ] && extra=(--param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
  "$kwb" new --workload tiny_llm --backend cuda --vary cuda_graph=off,on --runs 2 --warmup 0 --min-rep-ms 0 \
    --param requests=2 --param gen_tokens=24 "${extra[@]}" --out "$w/t-$model.json" --force >> "$r/kwbnew.log" 2>&1
  t0=$(date +%s)
  if [ -n "$nsys" ]; then
    timeout 90 "$nsys" profile -o "$w/t-$model" --trace=cuda --cuda-graph-trace=node --force-overwrite true \
      "$kwb" run "$w/t-$model.json" --no-cupti > "$r/nsys-$model.log" 2>&1
    "$nsys" stats -r cuda_gpu_kern_sum -f csv -o "$r/t-$model" "$w/t-$model.nsys-rep" >> "$r/nsys-$model.log" 2>&1
    "$nsys" stats -r cuda_gpu_trace -f csv -o "$w/t-$model" "$w/t-$model.nsys-rep" >> "$r/nsys-$model.log" 2>&1
    gzip -c "$w"/t-${model}_cuda_gpu_trace.csv > "$r/t-$model-trace.csv.gz" 2>/dev/null
  else
    timeout 90 "$ncu" --metrics gpu__time_duration.sum,launch__grid_size,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      --launch-skip 6000 --launch-count 400 --csv "$kwb" run "$w/t-$model.json" --no-cupti > "$r/ncu-t-$model.csv" 2> "$r/ncu-t-$model.err"
  fi
  cp "$w/t-$model.json" "$r/" 2>/dev/null
  echo "tiny $model $(( $(date +%s) - t0 )) s" >> "$r/env.txt"
done
ls -la "$r" >> "$r/env.txt"
tar -C "$out" -czf "$out/diag.tgz" r && rm -rf "$r"
