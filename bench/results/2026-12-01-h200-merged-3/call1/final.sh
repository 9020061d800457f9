#!/usr/bin/env bash
# Final call of the session (merge5): every GPU test, the copy ceiling, torch SDPA decode before and
# after our decode sweep, tiny_llm graph off/on of the merged plugin and of main's (base.so) at 1.7
# and 3.4 GB plus a 6.3 GB model, pdl off/on, and ncu per-kernel times of one decode step.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r/studies
export OUT=$r
cd "$here"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests torch-attention > $r/run-all-1.log 2>&1; echo "rc=$?" >> $r/run-all-1.log
mv $r/torch-attention.json $r/torch-attention-1.json; mv $r/torch-attention.log $r/torch-attention-1.log
. "$here/gpu_env.sh"
new=$here/lib/libkwb_gpu_backend.so; base=$here/lib/base.so
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
study base-1.7gb "$base" cuda_graph=off,on 10
study base-3.4gb "$base" cuda_graph=off,on 10 "${big[@]}"
study base-6.3gb "$base" cuda_graph=off,on 10 "${huge[@]}"
study pdl-1.7gb "$new" pdl=off,on 10 --param cuda_graph=on
study pdl-3.4gb "$new" pdl=off,on 10 --param cuda_graph=on "${big[@]}"
python3 "$here/summ.py" "$r"/studies/*.json > "$r/tiny-summary.txt" 2>&1
KWB_STAGE_TIMEOUT=200 bash run-all.sh decode torch-attention > $r/run-all-2.log 2>&1; echo "rc=$?" >> $r/run-all-2.log
prof() { # name extra...
  local name=$1; shift
  t0=$(date +%s)
  "$kwb" new --workload tiny_llm --backend cuda --vary pdl=off,on --runs 1 --warmup 0 --min-rep-ms 0 \
    --param requests=2 --param gen_tokens=128 "$@" --out "$r/p-$name.json" --force >> "$r/kwbnew.log" 2>&1
  timeout 60 "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum,launch__grid_size,dram__bytes_read.sum \
    --launch-skip 12000 --launch-count 400 --csv "$kwb" run "$r/p-$name.json" --no-cupti > "$r/ncu-$name.csv" 2> "$r/ncu-$name.err"
  T "ncu $name" $?; rm -f "$r/p-$name.json"
}
prof 3.4gb "${big[@]}"
gzip "$r"/ncu-*.csv
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv >> $r/env.txt 2>&1
cp "$here/final.sh" "$here/summ.py" $r/
tar -C /tmp -czf $o/res.tgz res
cat $r/gpu-tests.txt; cat $r/stages.txt; tail -n 1 $r/run-all-1.log $r/run-all-2.log
grep -h '"itl_p50_ms"' $r/tiny-summary.txt | cut -c1-200
