#!/usr/bin/env bash
# Second call (merge5 + the normed GEMV's one-pass residual load, embed/argmax load batching):
# every GPU test, the copy ceiling, tiny_llm graph off/on of this plugin and of the previous call's
# (prev.so, dd4f38f) at 1.7, 3.4 and 6.3 GB, and ncu per-kernel times of one 3.4 GB decode step.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r/studies
export OUT=$r
cd "$here"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests > $r/run-all-1.log 2>&1; echo "rc=$?" >> $r/run-all-1.log
. "$here/gpu_env.sh"
new=$here/lib/libkwb_gpu_backend.so; prev=$here/lib/prev.so
kwb=$here/bin/kwb; ncu=/usr/local/cuda/bin/ncu
T() { echo "$1: $(( $(date +%s) - t0 )) s, rc $2" >> "$r/stages.txt"; }
t0=$(date +%s); timeout 40 "$kwb" calibrate --json > "$r/calibrate.json" 2> "$r/calibrate.log"; T calibrate $?
big=(--param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
huge=(--param layers=16 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
study() { # name plugin vary runs extra...
  local name=$1 plugin=$2 vary=$3 runs=$4; shift 4
  t0=$(date +%s)
  "$kwb" new --workload tiny_llm --backend cuda --vary "$vary" --metric itl_p50_ms --guard ttft_ms --guard tok_s \
    --runs "$runs" --min-rep-ms 0 "$@" --out "$r/studies/$name.json" --force > "$r/studies/$name.new.txt" 2>&1 &&
  KWB_GPU_BACKEND=$plugin timeout 90 "$kwb" run "$r/studies/$name.json" --no-cupti > "$r/studies/$name.run.txt" 2>&1
  T "study $name" $?
}
study new-1.7gb "$new" cuda_graph=off,on 10
study new-3.4gb "$new" cuda_graph=off,on 10 "${big[@]}"
study new-6.3gb "$new" cuda_graph=off,on 10 "${huge[@]}"
study prev-1.7gb "$prev" cuda_graph=off,on 10
study prev-3.4gb "$prev" cuda_graph=off,on 10 "${big[@]}"
study prev-6.3gb "$prev" cuda_graph=off,on 10 "${huge[@]}"
python3 "$here/summ.py" "$r"/studies/*.json > "$r/tiny-summary.txt" 2>&1
t0=$(date +%s)
"$kwb" new --workload tiny_llm --backend cuda --vary pdl=off,on --runs 1 --warmup 0 --min-rep-ms 0 \
  --param requests=2 --param gen_tokens=128 "${big[@]}" --out "$r/p.json" --force >> "$r/kwbnew.log" 2>&1
timeout 60 "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum,launch__grid_size,dram__bytes_read.sum \
  --launch-skip 12000 --launch-count 400 --csv "$kwb" run "$r/p.json" --no-cupti > "$r/ncu-3.4gb.csv" 2> "$r/ncu-3.4gb.err"
T "ncu 3.4gb" $?; rm -f "$r/p.json"; gzip "$r"/ncu-*.csv
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv >> $r/env.txt 2>&1
cp "$here/final2.sh" "$here/summ.py" $r/
tar -C /tmp -czf $o/res.tgz res
cat $r/gpu-tests.txt; cat $r/stages.txt; tail -n 1 $r/run-all-1.log
grep -h '"itl_p50_ms"' $r/tiny-summary.txt | cut -c1-150
