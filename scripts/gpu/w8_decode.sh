#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 34's magnitude pivot as a study on the GPU machine, from a packed folder (scripts/gpu/pack.sh):
# tiny_llm decode at the CUDA defaults with bf16 weights against fp8 e4m3 per-row weights, an
# interleaved A/B on ITL (the fp8 arm's check carries the accuracy guard against the bf16 model),
# then its verdict and report. Writes under $OUT/w8/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}/w8
mkdir -p "$out"
. "$here/gpu_env.sh"
kwb=$here/bin/kwb
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/env.txt" 2>&1
"$kwb" calibrate --json > "$out/calibrate.json" 2> "$out/calibrate.log"
cmd_new=("$kwb" new --workload tiny_llm --param cuda_graph=on --vary weights=bf16,fp8 --backend cuda --metric itl_p50_ms
  --runs "${KWB_W8_RUNS:-16}" --out "$out/w8-decode.json" --force)
echo "${cmd_new[*]}" > "$out/commands.txt"
"${cmd_new[@]}" > "$out/new.log" 2>&1; echo "new: exit $?" >> "$out/exits.txt"
echo "$kwb run $out/w8-decode.json --backend cuda --device 0" >> "$out/commands.txt"
"$kwb" run "$out/w8-decode.json" --backend cuda --device 0 > "$out/run.log" 2>&1
echo "run: exit $?" >> "$out/exits.txt"
"$kwb" verdict "$out/w8-decode.json" > "$out/verdict.txt" 2>&1
"$kwb" report "$out/w8-decode.json" --format md --out "$out/w8-decode.md" > /dev/null 2>&1
echo "report: exit $?" >> "$out/exits.txt"
