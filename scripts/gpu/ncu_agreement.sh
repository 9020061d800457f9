#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The PM-vs-ncu agreement check of issues 10 and 30, run by run-all.sh's `ncu` stage from a packed
# folder: EVERY CUPTI PM lane (engine/sampling/cupti_metrics.h, through gpu_pm_agreement: the mean
# over a long back-to-back window of each kernel) beside `ncu --clock-control none` on the same
# kernels launched by `kwb run --no-cupti` (ncu's profiler and PM sampling cannot share a
# process): the 2 GiB copy (vector width 4), the bf16 8192^3 cuBLASLt GEMM and the paged decode
# attention (batch 64, 8k context, impl=mma, pdl=0 on both sides: ncu serialises launches, so
# programmatic dependent launch's overlap exists only in the PM run). The lane -> ncu metric map comes from the PM
# program's output (one owner: the lane table). Writes pm-lane-means.log, ncu-*.csv,
# ncu/commands.txt and ncu-agreement.md under $1 (default $OUT) and the JSON summary
# (summarise_ncu_agreement.py) to stdout.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-$PWD/gpu-out}}
kwb="$here/bin/kwb"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "ncu_agreement: no ncu on this machine" >&2; exit 1; }
mkdir -p "$out/ncu"
: > "$out/ncu/commands.txt"
"$here/bin/gpu_pm_agreement" > "$out/pm-lane-means.log" 2>&1 || echo "gpu_pm_agreement failed (see pm-lane-means.log)" >&2
metrics=$(python3 - "$out/pm-lane-means.log" <<'PY'
import json, sys
for line in open(sys.argv[1], errors="replace"):
    if '"pm_lane_means"' in line:
        names = json.loads(line[line.index("{"):])["ncu_names"]
        print(",".join(sorted(set(names.values())) + ["gpu__time_duration.sum"]))
        break
PY
)
[ -n "$metrics" ] || { echo "ncu_agreement: no pm_lane_means line from gpu_pm_agreement" >&2; exit 1; }
# The studies ncu launches through are scratch (one launch window each, nothing judged): kept out of
# $out, so no results folder holds them (their short NVML lanes read all zero, two of them alike).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
profile() {  # name, kernel regex, kwb new arguments...
  local name=$1 regex=$2; shift 2
  local f="$scratch/$name.json"
  "$kwb" new "$@" --runs 1 --warmup 0 --min-rep-ms 0 --backend cuda --out "$f" --force 2>> "$out/ncu/kwb.log"
  # Skip the first launch (verification), then profile five; base units (1/s, B/s) for the rates.
  local cmd=("$ncu" --clock-control none --print-units base --metrics "$metrics" --kernel-name-base demangled
    --kernel-name "regex:$regex" --launch-skip 1 --launch-count 5 --csv "$kwb" run "$f" --no-cupti)
  printf '%s: kwb new %s\n%s: %s\n' "$name" "$*" "$name" "${cmd[*]}" >> "$out/ncu/commands.txt"
  "${cmd[@]}" > "$out/ncu-$name.csv" 2>> "$out/ncu/ncu.log"
}
profile copy 'stream_kernel' --workload bandwidth --param op=copy --param size_mb=2048 --vary block_threads=256,512
profile gemm 'nvjet' --workload gemm --param impl=cublaslt --param m=8192 --param n=8192 --param k=8192 \
  --vary block_n=64,128
profile decode 'decode_mma_kernel' --workload attention_decode --param batch=64 --param context=8192 \
  --param length_spread=0 --param stages=2 --param impl=mma --param pdl=0 --vary seed=1,2
python3 "$here/summarise_ncu_agreement.py" "$out"
