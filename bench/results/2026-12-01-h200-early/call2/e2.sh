#!/usr/bin/env bash
# Call e2 (branch early = early attention + lmargmax + last-block combine): every GPU test, the copy
# ceiling, tiny_llm attention_combine kernel/last_block and graph off/on at 1.7, 3.4 and 6.3 GB,
# torch SDPA decode before and after the kwb_gpu_bench decode sweep.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r/studies
export OUT=$r
cd "$here"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests > $r/run-all-1.log 2>&1; echo "rc=$?" >> $r/run-all-1.log
cp $r/gpu-tests.txt $o/ 2>/dev/null
. "$here/gpu_env.sh"
new=$here/lib/libkwb_gpu_backend.so
kwb=$here/bin/kwb
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
g=(--param cuda_graph=on)
study combine-3.4gb "$new" attention_combine=kernel,last_block 10 "${g[@]}" "${big[@]}"
study combine-6.3gb "$new" attention_combine=kernel,last_block 10 "${g[@]}" "${huge[@]}"
study combine-1.7gb "$new" attention_combine=kernel,last_block 10 "${g[@]}"
study graph-3.4gb "$new" cuda_graph=off,on 10 "${big[@]}"
study graph-6.3gb "$new" cuda_graph=off,on 10 "${huge[@]}"
study graph-1.7gb "$new" cuda_graph=off,on 10
python3 "$here/summarise_tiny_llm.py" "$r"/studies/*.json > "$r/tiny-summary.txt" 2>&1
cp $r/tiny-summary.txt $r/stages.txt $r/calibrate.json $o/
KWB_STAGE_TIMEOUT=200 bash run-all.sh torch-attention > $r/run-all-2.log 2>&1
mv $r/torch-attention.json $r/torch-attention-1.json; mv $r/torch-attention.log $r/torch-attention-1.log
KWB_STAGE_TIMEOUT=200 bash run-all.sh decode torch-attention > $r/run-all-3.log 2>&1; echo "rc=$?" >> $r/run-all-3.log
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv >> $r/env.txt 2>&1
cp "$here/e2.sh" $r/
for f in $r/studies/*.json; do gzip -k "$f"; done
tar -C /tmp -czf $o/res.tgz res
cat $r/gpu-tests.txt; cat $r/stages.txt; tail -n 1 $r/run-all-1.log
grep -h 'itl_p50_ms' $r/tiny-summary.txt | cut -c1-120
grep "ctx 32768 batch 1 " $r/bench-decode.log | grep -o "combine [a-z_]*: {[^}]*median[^,]*" | head -40
