#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs on the GPU machine from the repository root: every GPU test and benchmark of .gpu-run,
# results as files under $OUT (or ./gpu-out). One invocation does all the GPU work.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/deps:${LD_LIBRARY_PATH:-}"
export KWB_GPU_BACKEND="$here/lib/libkwb_gpu_backend.so"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: ${KWB_COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1
} > "$out/env.txt"
"$here/bin/kwb" --version >> "$out/env.txt" 2>&1
"$here/bin/kwb" devices --json > "$out/devices.json" 2> "$out/devices.stderr"
"$here/bin/kwb" devices > "$out/devices.txt" 2>&1
status=0
for t in "$here"/bin/gpu_*; do
  name=$(basename "$t")
  "$t" > "$out/$name.log" 2>&1
  rc=$?
  echo "$name: exit $rc" | tee -a "$out/gpu-tests.txt"
  [ $rc -eq 0 ] || status=1
done
# Host-side engine benchmarks, for comparison with the development machine's.
[ -x "$here/bin/kwb_bench" ] && "$here/bin/kwb_bench" --json > "$out/kwb_bench.json" 2>&1
exit $status
