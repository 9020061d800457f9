#!/usr/bin/env bash
# Call e7 (main e53398a, the plugin of call 6 rebuilt with docs only changed): a replicate on another
# machine: every GPU test, the copy ceiling, tiny_llm graph off/on at 3.4 and 6.3 GB, early_attention
# off/on at 6.3 GB and gemv_grid wave/balanced at 6.3 GB.
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
t0=$(date +%s); timeout 120 bin/kwb_gpu_bench timeline > $r/timeline.json 2> $r/timeline.log; T timeline $?
cp $r/timeline.log $r/calibrate.json $o/
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
study graph-3.4gb "$new" cuda_graph=off,on 10 "${big[@]}"
study graph-6.3gb "$new" cuda_graph=off,on 10 "${huge[@]}"
study early-6.3gb "$new" early_attention=off,on 10 "${g[@]}" "${huge[@]}"
study grid-6.3gb "$new" gemv_grid=wave,balanced 10 "${g[@]}" "${huge[@]}"
python3 "$here/summarise_tiny_llm.py" "$r"/studies/*.json > "$r/tiny-summary.txt" 2>&1
cp $r/tiny-summary.txt $r/stages.txt $o/
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv >> $r/env.txt 2>&1
cp "$here/e7.sh" $r/
for f in $r/studies/*.json; do gzip -k "$f"; done
tar -C /tmp -czf $o/res.tgz res
cat $r/gpu-tests.txt | grep -v "exit 0"; cat $r/stages.txt; tail -n 1 $r/run-all-1.log
grep -h 'itl_p50_ms' $r/tiny-summary.txt | cut -c1-120
grep "^timeline" $r/timeline.log
