#!/usr/bin/env bash
# Fourth call: no code change; tiny_llm split counts above auto (splits 16, 32, 64 against 0 = auto)
# at batch 1, CUDA graph on, against auto, n = 10 per arm, same plugin as call 2 (commit in COMMIT).
set -u
here=$(cd "$(dirname "$0")" && pwd)/run
o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r/studies
. "$here/gpu_env.sh"
kwb=$here/bin/kwb
T() { echo "$1: $(( $(date +%s) - t0 )) s, rc $2" >> "$r/stages.txt"; }
big=(--param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
huge=(--param layers=16 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
study() { # name vary extra...
  local name=$1 vary=$2; shift 2
  t0=$(date +%s)
  "$kwb" new --workload tiny_llm --backend cuda --vary "$vary" --metric itl_p50_ms --guard ttft_ms --guard tok_s \
    --runs 10 --min-rep-ms 0 --param cuda_graph=on "$@" --out "$r/studies/$name.json" --force > "$r/studies/$name.new.txt" 2>&1 &&
  timeout 90 "$kwb" run "$r/studies/$name.json" --no-cupti > "$r/studies/$name.run.txt" 2>&1
  T "study $name" $?
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $r/env.txt 2>&1
cat "$here/COMMIT" >> $r/env.txt
for s in 16 32 64; do study s$s-3.4gb splits=0,$s "${big[@]}"; done
for s in 16 32; do study s$s-6.3gb splits=0,$s "${huge[@]}"; done
for s in 16 32; do study s$s-1.7gb splits=0,$s; done
python3 "$here/summ.py" "$r"/studies/*.json > "$r/tiny-summary.txt" 2>&1
cp "$here/../splits2.sh" $r/
tar -C /tmp -czf $o/res.tgz res
cat $r/stages.txt
grep -h '"itl_p50_ms"' $r/tiny-summary.txt | cut -c1-150
