#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Issues 29 and 30 on the GPU, from a packed folder (scripts/gpu/pack.sh): kwb studies whose
# verdicts and reports must show the new evidence. Stages (default: all, in this order):
#   calibrate  kwb calibrate (the speed-of-light guard reads the measured ceilings)
#   decode     paged decode attention A/B, batch 64, 8k, impl simt vs mma, CUPTI sampling on: the
#              metric diff and the binding call per arm in kwb report (json, md, pdf)
#   profile    kwb profile of that decode A/B's baseline: the binding call from a faithful profile
#   bound      kwb profile of the paged decode at batch 64, 8k with impl=mma and automatic splits (the
#              decode that reads about 4.4 TB/s timed): called memory-bandwidth from its bytes against
#              the measured ceiling (run calibrate first, in the same call)
#   sol        bandwidth copy A/B whose treatment skips 95% of its work (skip_work_pct, its check
#              bypassed): the speed-of-light guard must refuse it
#   shared     a copy A/B while a torch GEMM loop runs in a second process on the same GPU: the
#              verdict must say another process used the GPU
#   command    a command A/B (torch.mm 4096 vs 3072 printing Google Benchmark JSON, whose benchmark
#              names differ as declared with --expect-differ) with --backend cuda: the study must
#              record the H200, not the CPU
# Writes studies, reports and logs under $1 (default $OUT)/evidence.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-$PWD/gpu-out}}/evidence
mkdir -p "$out"
. "$here/gpu_env.sh"
kwb="$here/bin/kwb"
stages=("${@:2}")
[ ${#stages[@]} -eq 0 ] && stages=(calibrate decode profile bound sol shared command)
status=0
run_study() {   # name, kwb new arguments...
  local name=$1; shift
  local f="$out/$name.json"
  "$kwb" new "$@" --backend cuda --out "$f" --force 2>> "$out/kwb.log" || { echo "$name: kwb new failed" >> "$out/kwb.log"; return 1; }
  "$kwb" run "$f" > "$out/$name.txt" 2> "$out/$name.stderr"
  echo "$name: kwb run exit $?" | tee -a "$out/summary.txt"
  "$kwb" report "$f" --format json --out "$out/$name.report.json" 2>> "$out/kwb.log"
  "$kwb" report "$f" --format md --out "$out/$name.md" 2>> "$out/kwb.log"
}
for stage in "${stages[@]}"; do
  start=$(date +%s)
  case $stage in
    calibrate)
      "$kwb" calibrate --json > "$out/calibrate.json" 2> "$out/calibrate.log" || status=1 ;;
    decode)
      run_study decode-impl --workload attention_decode --param batch=64 --param context=8192 --param splits=1 \
        --vary impl=simt,mma --runs 10 || status=1
      "$kwb" report "$out/decode-impl.json" --format pdf --out "$out/decode-impl.pdf" 2>> "$out/kwb.log" ;;
    profile)
      "$kwb" profile "$out/decode-impl.json" > "$out/profile-decode.txt" 2>&1 || status=1
      cp "$out/decode-impl.json" "$out/profile-decode.json" ;;
    bound)
      "$kwb" new --workload attention_decode --param batch=64 --param context=8192 --param impl=mma \
        --vary seed=1,2 --backend cuda --out "$out/decode-bound.json" --force 2>> "$out/kwb.log" || status=1
      "$kwb" profile "$out/decode-bound.json" > "$out/profile-decode-bound.txt" 2>&1 || status=1 ;;
    sol)
      run_study sol-skip --workload bandwidth --param op=copy --param size_mb=2048 --param vector_width=4 \
        --vary skip_work_pct=0,95 --runs 6 || status=1 ;;
    shared)
      python3 - > "$out/torch-loop.log" 2>&1 <<'PY' &
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn_like(a)
end = time.time() + 60
while time.time() < end:
    for _ in range(20):
        torch.mm(a, b)
    torch.cuda.synchronize()
PY
      loop=$!
      sleep 8   # torch's start and its first GEMMs
      run_study copy-shared --workload bandwidth --param op=copy --param size_mb=2048 --vary vector_width=4,8 \
        --runs 6 || status=1
      kill $loop 2>/dev/null; wait $loop 2>/dev/null ;;
    command)
      cat > "$out/mm_gbench.py" <<'PY'
import json, sys, time, torch
n = int(sys.argv[1])
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
for _ in range(5):
    a @ a
torch.cuda.synchronize()
t = time.perf_counter()
for _ in range(50):
    a @ a
torch.cuda.synchronize()
ms = (time.perf_counter() - t) / 50 * 1e3
print(json.dumps({"benchmarks": [{"name": f"mm{n}", "run_name": f"mm{n}", "run_type": "iteration", "iterations": 50,
                                  "real_time": ms, "cpu_time": ms, "time_unit": "ms"}]}))
PY
      run_study command-gpu --baseline-cmd "python3 $out/mm_gbench.py 4096" --treatment-cmd "python3 $out/mm_gbench.py 3072" \
        --adapter gbench --expect-differ benchmark --runs 4 || status=1 ;;
    *) echo "evidence_studies.sh: unknown stage $stage" >&2; status=2 ;;
  esac
  echo "stage $stage: $(( $(date +%s) - start )) s" | tee -a "$out/stages.txt"
done
exit $status
