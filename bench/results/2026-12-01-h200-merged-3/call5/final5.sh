#!/usr/bin/env bash
# Fifth call (merge6 = main + prefillgemm): every GPU test (gpu_tiny_llm now with prefill_gemm wgmma and
# tiled cases), then TTFT of the 3.4 GB tiny_llm with cuBLASLt vs the own GEMMs in its prefill.
# Writes straight into $OUT (at most 8 files) so a cut-off call still returns what it did.
set -u
here=$(cd "$(dirname "$0")" && pwd); o=$OUT; r=/tmp/res; rm -rf $r; mkdir -p $r
cd "$here"
OUT=$r KWB_STAGE_TIMEOUT=120 bash run-all.sh env tests > $r/run-all.log 2>&1; echo "rc=$?" >> $r/run-all.log
{ cat $r/env.txt; cat $r/gpu-tests.txt; tail -n 1 $r/run-all.log; } > $o/tests.txt
cp $r/gpu_tiny_llm.log $o/gpu_tiny_llm.log
. "$here/gpu_env.sh"
big=(--param layers=8 --param hidden=4096 --param heads=32 --param kv_heads=8 --param ffn=11008)
for arm in wgmma tiled; do
  s="$r/study-$arm.json"; t0=$(date +%s)
  "$here/bin/kwb" new --workload tiny_llm --backend cuda --vary prefill_gemm=cublaslt,$arm --metric ttft_ms \
    --guard itl_p50_ms --runs 10 --min-rep-ms 0 "${big[@]}" --out "$s" --force > "$s.new.txt" 2>&1 &&
  timeout 100 "$here/bin/kwb" run "$s" --no-cupti > "$s.run.txt" 2>&1
  echo "study $arm rc=$? $(( $(date +%s) - t0 )) s" >> $o/tests.txt
  cp "$s.run.txt" $o/study-$arm.run.txt
done
python3 "$here/summ.py" $r/study-*.json > $o/summary.txt 2>&1
cp "$here/final5.sh" $r/; tar -C /tmp -czf $o/res.tgz res
cat $o/tests.txt; tail -n 6 $o/study-*.run.txt
python3 -c "
import json,sys
for l in open('$o/summary.txt'):
    l=l.strip()
    if l.startswith('{'):
        d=json.loads(l); print(d['arm'], d.get('ttft_ms'), d.get('itl_p50_ms'))
    else: print(l[:120])"
