#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The kwb-level GPU work, run by run-all.sh's `studies` stage from a packed folder: kwb
# calibrate, a GEMM tile A/B to its verdict (clocks per sample), the correctness gate on the GPU,
# and A/A false-alarm counts for the copy and the GEMM (the same configuration as both arms,
# interleaved, n = 10 per arm). Writes studies and logs under $1 (default $OUT).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-$PWD/gpu-out}}
aa_count=${KWB_AA_STUDIES:-20}
# Minimum repetition times (ms) of the GEMM A/As: under a power cap the SM clock holds two states
# for stretches of a few ms; longer repetitions average over them.
aa_gemm_rep_ms=${KWB_AA_GEMM_MIN_REP_MS:-10}
kwb="$here/bin/kwb"
mkdir -p "$out/studies"
status=0
log() { echo "$*" | tee -a "$out/studies.txt"; }

"$kwb" calibrate --json > "$out/calibrate.json" 2> "$out/calibrate.log" || status=1
"$kwb" devices > "$out/devices.txt" 2>&1

# The issue's first-user check: two real tensor-core GEMM configurations, interleaved, to a verdict.
ab="$out/studies/gemm-block_n.json"
"$kwb" new --workload gemm --vary block_n=64,128 --backend cuda --out "$ab" --force 2>> "$out/studies.log" &&
  "$kwb" run "$ab" > "$out/gemm-ab.txt" 2>> "$out/studies.log"
log "gemm block_n 64 vs 128: exit $?"

# A treatment that computes a wrong result must end with exit 1 and no verdict.
wrong="$out/studies/gemm-wrong.json"
"$kwb" new --workload gemm --param m=1000 --param n=1030 --param k=520 --vary inject_fault=none,wrong-result \
  --backend cuda --out "$wrong" --force 2>> "$out/studies.log"
"$kwb" run "$wrong" > /dev/null 2> "$out/gemm-wrong.log"
rc=$?
log "gemm wrong-result treatment: exit $rc (expected 1)"
[ $rc -eq 1 ] || status=1

# A/A: both arms the same configuration. kwb new needs two values, so the treatment is set back
# to the baseline's value afterwards (kwb run says "an A/A run" on stderr).
aa_study() {   # name, kwb new arguments...
  local name=$1; shift
  local f="$out/studies/aa-$name.json"
  "$kwb" new "$@" --runs 10 --backend cuda --out "$f" --force 2>> "$out/studies.log" || return 1
  python3 - "$f" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p)); e = d["experiments"][0]
e["arms"][1]["params"] = dict(e["arms"][0]["params"]); json.dump(d, open(p, "w"), indent=1)
PY
  "$kwb" run "$f" >> "$out/aa-$name.txt" 2>> "$out/studies.log"
}
for i in $(seq 1 "$aa_count"); do
  aa_study "copy-$i" --workload bandwidth --param op=copy --param size_mb=2048 --vary vector_width=4,8 || status=1
  for ms in $aa_gemm_rep_ms; do
    name="gemm-$i"; [ "$ms" = 10 ] || name="gemm-${ms}ms-$i"
    aa_study "$name" --workload gemm --param impl=cublaslt --param m=8192 --param n=8192 --param k=8192 \
      --vary block_n=64,128 --min-rep-ms "$ms" || status=1
  done
done
python3 "$here/summarise_studies.py" "$out/studies" > "$out/studies-summary.json" 2>> "$out/studies.log" || status=1
exit $status
