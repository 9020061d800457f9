#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The device call of this folder, run from a folder packed by scripts/gpu/pack.sh: the GPU tests
# packed (those the buffer pool touches), then interleaved per study index: a copy A/A on shared
# buffers, the same with every arm on buffers of its own (KWB_GPU_SEPARATE_BUFFERS=1, the old
# behaviour) and a cuBLASLt GEMM A/A (shared buffers).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export OUT=${OUT:-$here/gpu-out}
mkdir -p "$OUT"
cd "$here"
{
  KWB_STAGE_TIMEOUT=120 bash run-all.sh env tests
  KWB_BIAS_STUDIES=${KWB_BIAS_STUDIES:-20} KWB_BIAS_FAMILIES="copy-abba copy-separate gemm-abba" \
    KWB_STAGE_TIMEOUT=${KWB_AA_TIMEOUT:-235} bash run-all.sh aa-bias
} > "$OUT/stages.txt" 2>&1
python3 aa_bias.py "$OUT/aa-bias" > "$OUT/aa-summary.json" 2> "$OUT/aa-summary.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$OUT/stages.txt" 2>&1
cd "$OUT" && tar czf all.tgz --exclude=all.tgz . && \
  find . -mindepth 1 ! -name all.tgz ! -name aa-summary.json ! -name stages.txt ! -name gpu-tests.txt ! -name env.txt -delete
