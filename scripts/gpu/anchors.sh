#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 29's fair anchors, in one call on one GPU, from a packed folder (scripts/gpu/pack.sh):
# each of the plugin's kernels beside the path a torch user would take instead.
#   calibrate  kwb calibrate: copy, read-only and L2 read bandwidth, cuBLASLt bf16-out best-of-8 GEMM
#   gemm       kwb_gpu_bench gemm (own kernels vs the cuBLASLt reference arm, now bf16 C and the best
#              of the heuristic's candidates) and torch_reference.py (torch.mm) in the same call
#   prefill    kwb_gpu_bench prefill and torch SDPA on its default backend and each that runs
#   decode     kwb_gpu_bench decode (pdl 1 and pdl 0 rows) and torch SDPA eager and CUDA-graphed
#   decode-ncu ncu's kernel durations (gpu__time_duration) of both sides' decode kernels, batch 1 and
#              64 at 8k and 32k: the kernel-time comparison without launch overhead or overlap
# Writes under $1 (default $OUT)/anchors. Summarised by scripts/gpu/summarise_anchors.py.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-$PWD/gpu-out}}/anchors
mkdir -p "$out"
. "$here/gpu_env.sh"
stages=("${@:2}")
[ ${#stages[@]} -eq 0 ] && stages=(calibrate gemm prefill decode decode-ncu)
limit=${KWB_STAGE_TIMEOUT:-300}
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(cat "$here/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv 2>&1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
  "$ncu" --version 2>&1 | tail -1
} > "$out/env.txt"
status=0
for stage in "${stages[@]}"; do
  start=$(date +%s)
  case $stage in
    calibrate)
      XDG_DATA_HOME="$out/xdg" timeout "$limit" "$here/bin/kwb" calibrate --json > "$out/calibrate.json" \
        2> "$out/calibrate.log" || status=1 ;;
    gemm)
      timeout "$limit" "$here/bin/kwb_gpu_bench" gemm > "$out/bench-gemm.json" 2> "$out/bench-gemm.log" || status=1
      timeout "$limit" python3 "$here/torch_reference.py" > "$out/torch.json" 2> "$out/torch.log" || status=1 ;;
    prefill)
      timeout "$limit" "$here/bin/kwb_gpu_bench" prefill > "$out/bench-prefill.json" 2> "$out/bench-prefill.log" || status=1
      timeout "$limit" python3 "$here/torch_attention.py" prefill > "$out/torch-prefill.json" \
        2> "$out/torch-prefill.log" || status=1 ;;
    decode)
      timeout "$limit" "$here/bin/kwb_gpu_bench" decode > "$out/bench-decode.json" 2> "$out/bench-decode.log" || status=1
      timeout "$limit" python3 "$here/torch_attention.py" decode > "$out/torch-decode.json" \
        2> "$out/torch-decode.log" || status=1 ;;
    decode-ncu)
      [ -n "$ncu" ] || { echo "anchors: no ncu" >&2; status=1; continue; }
      mkdir -p "$out/ncu"
      for ctx in 8192 32768; do
        for b in 1 64; do
          for pdl in 1 0; do
            p="{\"batch\":$b,\"heads\":32,\"kv_heads\":8,\"head_dim\":128,\"context\":$ctx,\"length_spread\":0,\"page_size\":16,\"splits\":0,\"stages\":3,\"kv_dtype\":\"bf16\",\"impl\":\"mma\",\"pdl\":$pdl}"
            timeout 120 "$ncu" --clock-control none --metrics gpu__time_duration.sum --launch-skip 20 --launch-count 20 \
              --csv "$here/bin/kwb_gpu_bench" decode-one "$p" > "$out/ncu/plugin-b$b-ctx$ctx-pdl$pdl.csv" 2>> "$out/ncu/ncu.log"
          done
          timeout 120 "$ncu" --clock-control none --metrics gpu__time_duration.sum --launch-skip 20 --launch-count 20 \
            --csv python3 - "$b" "$ctx" > "$out/ncu/torch-b$b-ctx$ctx.csv" 2>> "$out/ncu/ncu.log" <<'PY'
import sys, torch, torch.nn.functional as F
B, ctx = int(sys.argv[1]), int(sys.argv[2])
q = torch.randn(B, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(B, 8, ctx, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn_like(k)
for _ in range(60):
    F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()
PY
        done
      done ;;
    *) echo "anchors.sh: unknown stage $stage" >&2; status=2 ;;
  esac
  echo "stage $stage: $(( $(date +%s) - start )) s" | tee -a "$out/stages.txt"
done
exit $status
