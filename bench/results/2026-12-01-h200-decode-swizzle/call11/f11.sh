#!/usr/bin/env bash
# Call f11 (one split-count rule): every GPU test; tiny_llm graph off/on at 3.4 GB with this plugin and
# main's before this session (base.so, 4ac5c6e), interleaved as two studies; the copy ceiling.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r/studies
export OUT=$r
cd "$here"
KWB_STAGE_TIMEOUT=200 bash run-all.sh env tests > $r/run-all-1.log 2>&1
. ./gpu_env.sh
new=$here/lib/libkwb_gpu_backend.so; base=$here/lib/base.so
kwb=$here/bin/kwb
T() { echo "$1: $(( $(date +%s) - t0 )) s, rc $2" >> "$r/stages.txt"; }
t0=$(date +%s); timeout 40 "$kwb" calibrate --json > "$r/calibrate.json" 2> "$r/calibrate.log"; T calibrate $?
big=(--param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
study() { # name plugin vary runs extra...
  local name=$1 plugin=$2 vary=$3 runs=$4; shift 4
  t0=$(date +%s)
  "$kwb" new --workload tiny_llm --backend cuda --vary "$vary" --metric itl_p50_ms --guard ttft_ms --guard tok_s \
    --runs "$runs" --min-rep-ms 0 "$@" --out "$r/studies/$name.json" --force > "$r/studies/$name.new.txt" 2>&1 &&
  KWB_GPU_BACKEND=$plugin timeout 90 "$kwb" run "$r/studies/$name.json" --no-cupti > "$r/studies/$name.run.txt" 2>&1
  T "study $name" $?
}
study new-graph-3.4gb "$new" cuda_graph=off,on 10 "${big[@]}"
study base-graph-3.4gb "$base" cuda_graph=off,on 10 "${big[@]}"
python3 "$here/summarise_tiny_llm.py" "$r"/studies/*.json > "$r/tiny-summary.txt" 2>&1
cp "$here/f11.sh" $r/
for f in $r/studies/*.json; do gzip "$f"; done
tar -C /tmp -czf $o/res.tgz res
cat $r/stages.txt; grep -v "exit 0" $r/gpu-tests.txt
grep -h 'itl_p50_ms' $r/tiny-summary.txt | cut -c1-150
