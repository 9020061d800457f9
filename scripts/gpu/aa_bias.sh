#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Looks for the cause of a sign-consistent A/A delta on the GPU (issue 8): the same configuration
# as both arms, in ABBA blocks and in seeded random blocks (a new seed per study), for the copy and
# the power-capped cuBLASLt GEMM at 100 ms repetitions, plus three-arm A/As (--aa-arm) whose third
# arm is a third prepared instance of the same configuration. aa_bias.py then separates an effect
# of the schedule (position in the block, the first repetition after an arm switch) from one of the
# arm's prepared instance (its buffers, its cuBLASLt plan). Writes under $1 (default $OUT).
# Knobs: KWB_BIAS_STUDIES (per family, default 10), KWB_BIAS_GEMM_MS (default 100),
# KWB_BIAS_FAMILIES (default "copy-abba copy-random gemm-abba gemm-random gemm-3arm"; also
# gemm-abba-warmup3: three warm-up rounds instead of one; copy-separate and copy-3arm-separate:
# the copy with every arm on device buffers of its own, KWB_GPU_SEPARATE_BUFFERS=1, as before the
# plugin's buffer pool), KWB_BIAS_OUT (folder name, aa-bias).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-$PWD/gpu-out}}/${KWB_BIAS_OUT:-aa-bias}
families=${KWB_BIAS_FAMILIES:-copy-abba copy-random gemm-abba gemm-random gemm-3arm}
count=${KWB_BIAS_STUDIES:-10}
gemm_ms=${KWB_BIAS_GEMM_MS:-100}
kwb="$here/bin/kwb"
mkdir -p "$out"
copy=(--workload bandwidth --param op=copy --param size_mb=2048 --vary vector_width=4,8)
gemm=(--workload gemm --param impl=cublaslt --param m=8192 --param n=8192 --param k=8192 --vary block_n=64,128
  --min-rep-ms "$gemm_ms")

# kwb new needs two values of the varied parameter; every arm is set back to the baseline's.
study() {   # name, kwb new arguments...
  local name=$1; shift
  local f="$out/$name.json"
  "$kwb" new "$@" --runs 10 --backend cuda --out "$f" --force 2>> "$out/kwb.log" || return 1
  python3 - "$f" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p)); e = d["experiments"][0]
for arm in e["arms"][1:]:
    arm["params"] = dict(e["arms"][0]["params"])
json.dump(d, open(p, "w"), indent=1)
PY
  "$kwb" run "$f" > "$out/$name.txt" 2>> "$out/kwb.log"
}
status=0
for i in $(seq 1 "$count"); do
  for family in $families; do
    case $family in
      copy-abba) study "$family-$i" "${copy[@]}" ;;
      copy-random) study "$family-$i" "${copy[@]}" --order random --seed "$i" ;;
      copy-separate) (export KWB_GPU_SEPARATE_BUFFERS=1; study "$family-$i" "${copy[@]}") ;;
      copy-3arm-separate) if [ $((i % 2)) = 1 ]; then
          (export KWB_GPU_SEPARATE_BUFFERS=1; study "$family-$i" "${copy[@]}" --aa-arm); fi ;;
      gemm-abba) study "$family-$i" "${gemm[@]}" ;;
      gemm-abba-warmup3) study "$family-$i" "${gemm[@]}" --warmup 3 ;;
      gemm-random) study "$family-$i" "${gemm[@]}" --order random --seed "$i" ;;
      gemm-3arm) if [ $((i % 2)) = 1 ]; then study "$family-$i" "${gemm[@]}" --aa-arm; fi ;;
      *) echo "aa_bias.sh: unknown family $family" >&2; false ;;
    esac || status=1
  done
done
python3 "$here/aa_bias.py" "$out" > "$out/summary.json" 2>> "$out/kwb.log" || status=1
exit $status
